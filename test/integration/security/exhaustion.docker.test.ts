/**
 * Agents that exhaust a shared resource of the actor's container to make
 * the engine fail (docs/security.md, "Exhaustion"): an engine error would
 * turn the agent's wrong answer (0) into a run that is dropped or retried.
 * The run must complete with 0, and leave no container behind.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { cli } from '../cli/cliHarness';
import { forkBombAgent } from './exhaustionAgents';
import { assertNoContainersOfRollout, dockerReady, tempDir } from '../docker/support';

before(dockerReady);

/** Actor and verifier share the container; the verifier counts the agent's live processes. */
const WATCH = `${join(__dirname, 'fixtures', 'survivor_watch', 'env.py')}::task`;

async function attack(
  command: string,
): Promise<{ status: string; reward: number | null; info: Record<string, unknown>; stdout: string }> {
  const r = await cli([
    'run',
    WATCH,
    '--command',
    command,
    '--runtime',
    'docker',
    '--trace-dir',
    tempDir('exhaustion'),
    '--timeout',
    '180',
    '--json',
  ]);
  const json = JSON.parse(r.stdout) as { status: string; reward: number | null; trace: string };
  const trace = readTrace(json.trace);
  await assertNoContainersOfRollout(trace.rolloutId);
  return { ...json, info: trace.result?.info ?? {}, stdout: r.stdout };
}

test("a fork bomb that fills the agent's process limit does not keep the engine from sweeping and grading", async () => {
  const r = await attack(forkBombAgent('/workspace', 'hud-studio-fork-bomb'));
  assert.equal(r.status, 'completed', `the agent turned its run into an error: ${r.stdout}`);
  assert.equal(r.reward, 0);
  assert.equal(r.info['agent_processes'], 0, 'the verifier saw a process of the agent');
});
