/**
 * Agents that exhaust a shared resource of the actor's container to make
 * the engine fail (docs/security.md, "Exhaustion"): an engine error would
 * turn the agent's wrong answer (0) into a run that is dropped or retried.
 * The run must complete with 0, and leave no container behind.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runWatched } from './survivorWatch';
import { forkBombAgent } from './exhaustionAgents';
import { dockerReady } from '../docker/support';

before(dockerReady);

const attack = (command: string) => runWatched(command, 180);

test("a fork bomb that fills the agent's process limit does not keep the engine from sweeping and grading", async () => {
  const r = await attack(forkBombAgent('/workspace', 'hud-studio-fork-bomb'));
  assert.equal(r.status, 'completed', `the agent turned its run into an error: ${r.stdout}`);
  assert.equal(r.reward, 0);
  assert.equal(r.info['agent_processes'], 0, 'the verifier saw a process of the agent');
});
