/**
 * Harbor golden solutions: `golden/good/NAME/solve.sh` and
 * `golden/bad/NAME/solve.sh` beside a task.toml, each held to an
 * expectation: 1 for good, 0 for bad, unless the folder's `expect` file
 * says otherwise (docs/grader-workbench.md). Read here for the engine, the
 * CLI and the Testing view alike; running them is the engine's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Expectation } from './expect';

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

/** `harbor/fix/golden/bad/empty` as the label of a solution. */
export function solutionLabel(s: Pick<HarborSolution, 'kind' | 'name'>): string {
  return `${s.kind}/${s.name}`;
}
