/**
 * Attacks on the engine's end-of-turn sweep, on Docker (docs/security.md):
 * the `survivor_watch` environment's actor and verifier share the
 * container, and its verifier counts the agent's live processes while it
 * grades. A run of it, from the CLI, with the agent's command given.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { assertNoContainersOfRollout } from '../docker/support';
import { runRollout } from './rollout';

const WATCH = `${join(__dirname, 'fixtures', 'survivor_watch', 'env.py')}::task`;

export interface WatchedRun {
  status: string;
  reward: number | null;
  /** The verifier's grade info: `agent_processes` is how many of the agent's it saw. */
  info: Record<string, unknown>;
  stdout: string;
}

/** Runs the watched task with `command` in the agent's seat; no container of the run may be left. */
export async function runWatched(command: string, timeoutS: number): Promise<WatchedRun> {
  const json = await runRollout(WATCH, command, { runtime: 'docker', timeoutS, traces: 'survivor-watch' });
  assert.ok(json.trace, `the run wrote no trace: ${json.stdout}`);
  const trace = readTrace(json.trace);
  await assertNoContainersOfRollout(trace.rolloutId);
  return { status: json.status, reward: json.reward, info: trace.result?.info ?? {}, stdout: json.stdout };
}
