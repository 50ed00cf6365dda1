/**
 * Harbor golden solutions: `golden/good/NAME/solve.sh` and
 * `golden/bad/NAME/solve.sh` beside a task.toml, each run by the oracle in
 * place of solution/ and held to an expectation: 1 for good, 0 for bad,
 * unless the folder's `expect` file says otherwise (docs/grader-workbench.md).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { errorMessage } from '../errors';
import type { RunContext, RunTask } from '../runRequest';
import { describeExpectation, Expectation, satisfies } from '../../../../common/golden/expect';
import type { GoldenOutcome } from './run';

export const HARBOR_GOLDEN_DIR = 'golden';
export const SOLUTION_KINDS = ['good', 'bad'] as const;
export type SolutionKind = (typeof SOLUTION_KINDS)[number];
const DEFAULT_EXPECT: Record<SolutionKind, Expectation> = { good: 1, bad: 0 };

export interface HarborSolution {
  kind: SolutionKind;
  name: string;
  /** The folder copied to /solution. */
  dir: string;
  expect: Expectation;
}

export interface HarborGoldenProblem {
  /** The file or folder at fault. */
  path: string;
  message: string;
}

export interface HarborGolden {
  taskDir: string;
  solutions: HarborSolution[];
  problems: HarborGoldenProblem[];
}

export function hasHarborGolden(taskDir: string): boolean {
  return existsSync(join(taskDir, 'task.toml')) && existsSync(join(taskDir, HARBOR_GOLDEN_DIR));
}

/** The solutions under a task's golden/; a folder without solve.sh or a bad expect file becomes a problem. */
export function readHarborGolden(taskDir: string): HarborGolden {
  const solutions: HarborSolution[] = [];
  const problems: HarborGoldenProblem[] = [];
  const root = join(taskDir, HARBOR_GOLDEN_DIR);
  for (const e of existsSync(root) ? readdirSync(root, { withFileTypes: true }) : []) {
    if (!e.isDirectory() || !(SOLUTION_KINDS as readonly string[]).includes(e.name))
      problems.push({
        path: join(root, e.name),
        message: `golden/ holds only good/ and bad/ folders (move ${e.name} into one of them)`,
      });
  }
  for (const kind of SOLUTION_KINDS) {
    const kindDir = join(root, kind);
    if (!existsSync(kindDir)) continue;
    for (const e of readdirSync(kindDir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const dir = join(kindDir, e.name);
      if (!e.isDirectory()) {
        problems.push({
          path: dir,
          message: `each ${kind} solution is a folder holding solve.sh (fix: ${kind}/NAME/solve.sh)`,
        });
        continue;
      }
      if (!existsSync(join(dir, 'solve.sh'))) {
        problems.push({ path: dir, message: `no solve.sh in ${kind}/${e.name} (fix: add the script the oracle runs)` });
        continue;
      }
      const expect = readExpect(join(dir, 'expect'), kind);
      if ('problem' in expect) problems.push({ path: join(dir, 'expect'), message: expect.problem });
      else solutions.push({ kind, name: e.name, dir, expect: expect.value });
    }
  }
  return { taskDir, solutions, problems };
}

/** The optional `expect` file: one expectation, as a golden row writes it (`1`, `">= 0.5"`, `{"min": 0.5}`). */
function readExpect(path: string, kind: SolutionKind): { value: Expectation } | { problem: string } {
  if (!existsSync(path)) return { value: DEFAULT_EXPECT[kind] };
  const text = readFileSync(path, 'utf8').trim();
  let json: unknown = text;
  try {
    json = JSON.parse(text);
  } catch {
    // A bare comparison such as >= 0.5 is not JSON; it is read as the string it is.
  }
  const r = Expectation.safeParse(json);
  return r.success
    ? { value: r.data }
    : {
        problem: `"${text}" is not an expectation (fix: write a reward such as 1, a comparison such as >= 0.5, or {"min": 0.5})`,
      };
}

export interface HarborGoldenOptions {
  cwd: string;
  context?: RunContext;
  run?: RunTask;
  dockerHost?: string;
}

/** `harbor/fix/golden/bad/empty` as the label of a solution. */
export function solutionLabel(s: Pick<HarborSolution, 'kind' | 'name'>): string {
  return `${s.kind}/${s.name}`;
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
