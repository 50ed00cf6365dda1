/**
 * How the security tests run a rollout: `hud-studio run ... --json` in
 * process, its traces in a fresh folder, and the JSON object it printed.
 */
import assert from 'node:assert/strict';
import type { RunJson } from '../../../client/src/cli/run';
import { cli } from '../cli/cliHarness';
import { tempDir } from '../docker/support';

export interface RolloutOptions {
  runtime: 'docker' | 'local';
  /** The value is the actor's answer (`--answer`), not a command to run in its seat. */
  answer?: boolean;
  image?: string;
  /** The image's own SDK serves (`--sdk image`). */
  imageSdk?: boolean;
  timeoutS?: number;
  /** A name for the run's trace folder. */
  traces: string;
}

export interface RolloutRun extends RunJson {
  stdout: string;
  stderr: string;
}

/** A completed run, whose trace was written. */
export type CompletedRun = RolloutRun & { status: 'completed'; trace: string };

export async function runRollout(ref: string, value: string, o: RolloutOptions): Promise<RolloutRun> {
  const r = await cli([
    'run',
    ref,
    o.answer ? '--answer' : '--command',
    value,
    '--runtime',
    o.runtime,
    ...(o.image ? ['--image', o.image] : []),
    ...(o.imageSdk ? ['--sdk', 'image'] : []),
    ...(o.timeoutS ? ['--timeout', String(o.timeoutS)] : []),
    '--trace-dir',
    tempDir(o.traces),
    '--json',
  ]);
  let json: RunJson;
  try {
    json = JSON.parse(r.stdout) as RunJson;
  } catch {
    assert.fail(`hud-studio run printed no JSON object (exit ${r.code}):\n${r.stdout}${r.stderr}`);
  }
  return { ...json, stdout: r.stdout, stderr: r.stderr };
}

/** runRollout, failing the test, with the CLI's output, unless the run completed with a trace. */
export async function completedRollout(ref: string, value: string, o: RolloutOptions): Promise<CompletedRun> {
  const r = await runRollout(ref, value, o);
  assert.equal(r.status, 'completed', r.stdout + r.stderr);
  assert.ok(r.trace, `the run wrote no trace: ${r.traceError ?? r.stdout}`);
  return r as CompletedRun;
}
