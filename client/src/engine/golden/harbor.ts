/**
 * Runs a Harbor golden solution (common/golden/solutions.ts reads them) with
 * the oracle in place of solution/ (docs/grader-workbench.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { errorMessage } from '../errors';
import type { RunContext, RunTask } from '../runRequest';
import { describeExpectation, satisfies } from '../../../../common/golden/expect';
import { solutionLabel, type HarborGolden, type HarborSolution } from '../../../../common/golden/solutions';
import type { GoldenOutcome } from './run';

export interface HarborGoldenOptions {
  cwd: string;
  context?: RunContext;
  run?: RunTask;
  dockerHost?: string;
}

/** Runs one solution with the oracle; the trial's trace goes to a scratch folder that is removed after. */
export async function runHarborSolution(
  golden: Pick<HarborGolden, 'taskDir'>,
  s: HarborSolution,
  opts: HarborGoldenOptions,
): Promise<GoldenOutcome> {
  const run = opts.run ?? (await import('../runTask')).runTask;
  const ref = relative(opts.cwd, golden.taskDir).split('\\').join('/') || '.';
  const expected = describeExpectation(s.expect);
  const row = { task: solutionLabel(s), answer: null, expect: s.expect, line: 1 };
  const scratch = mkdtempSync(join(tmpdir(), 'hud-studio-golden-'));
  try {
    const done = await run(
      {
        ref,
        cwd: opts.cwd,
        runtime: 'docker',
        agent: { choice: { agent: 'oracle', solution: s.dir } },
        consent: { serviceAccess: false, sharedSecrets: false },
        traceDir: scratch,
        ...(opts.dockerHost ? { dockerHost: opts.dockerHost } : {}),
      },
      opts.context ?? {},
    );
    const reward = done.result?.reward ?? null;
    // A known-bad script may well exit non-zero; the verifier still ran on what it left, and that reward counts.
    if (reward === null) {
      const error = done.error?.message ?? `${done.status} without a reward`;
      return { row, ref, passed: false, expected, reward, subscores: [], result: done.result, error };
    }
    return { row, ref, passed: satisfies(s.expect, reward), expected, reward, subscores: [], result: done.result };
  } catch (err) {
    return { row, ref, passed: false, expected, reward: null, subscores: [], result: null, error: errorMessage(err) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
