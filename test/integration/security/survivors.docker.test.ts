/**
 * Agents that try to outlive their turn on Docker (docs/security.md): the
 * engine's sweep of the agent's processes must itself be out of the agent's
 * reach, and must finish before the verifier that shares the substrate
 * grades. A wrong answer still scores 0, the run completes (an agent must not
 * be able to turn its 0 into an engine error), and the verifier sees no
 * process of the agent's.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runWatched } from './survivorWatch';
import { dockerReady } from '../docker/support';

before(dockerReady);

const attack = (command: string) => runWatched(command, 120);

test("a process that kills its own user's processes in a loop cannot kill the engine's sweep", async () => {
  // It starts once the agent's shell has exited (so that the answer gets out), and never stops.
  const r = await attack(
    "setsid sh -c 'while kill -0 '$$' 2>/dev/null; do :; done; while :; do kill -9 -1 2>/dev/null; done' </dev/null >/dev/null 2>&1 & echo wrong",
  );
  assert.equal(r.status, 'completed', `the agent turned its run into an error: ${r.stdout}`);
  assert.equal(r.reward, 0);
  assert.equal(r.info['agent_processes'], 0, 'the verifier saw a process of the agent');
});

test('a process that forks without end does not outrun the sweep, which signals one pid at a time', async () => {
  // Each child forks again at once: a sweep that only killed what it listed first would always find more.
  const r = await attack(
    "setsid sh -c 'spawn() { while :; do sleep 1000 & spawn & wait; done; }; spawn' </dev/null >/dev/null 2>&1 & echo wrong",
  );
  assert.equal(r.status, 'completed', r.stdout);
  assert.equal(r.reward, 0);
  assert.equal(r.info['agent_processes'], 0, 'the verifier saw a process of the agent');
});
