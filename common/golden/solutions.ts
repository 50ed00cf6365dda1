/**
 * Harbor golden solutions: `golden/good/NAME/solve.sh` and
 * `golden/bad/NAME/solve.sh` beside a task.toml, each held to an
 * expectation: 1 for good, 0 for bad, unless the folder's `expect` file
 * says otherwise (docs/grader-workbench.md). Read here for the engine, the
 * CLI and the Testing view alike; running them is the engine's.
 */
import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
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

/** What is at a path: a folder, a file, or nothing (a path that cannot be read counts as nothing). */
function kindOf(path: string): 'folder' | 'file' | undefined {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return [];
  }
}

/**
 * The solutions under a task's golden/. Whatever the oracle could not run
 * (a stray file, a folder that says neither good nor bad, no solve.sh, an
 * `expect` file that is not an expectation) becomes a problem naming its path.
 */
export function readHarborGolden(taskDir: string): HarborGolden {
  const solutions: HarborSolution[] = [];
  const problems: HarborGoldenProblem[] = [];
  const root = join(taskDir, HARBOR_GOLDEN_DIR);
  const rootKind = kindOf(root);
  if (rootKind === 'file')
    problems.push({
      path: root,
      message: `golden is a file, but it must be a folder of solutions (fix: make golden/ a folder holding good/NAME/solve.sh and bad/NAME/solve.sh)`,
    });
  if (rootKind !== 'folder') return { taskDir, solutions, problems };
  for (const e of entries(root)) {
    if ((SOLUTION_KINDS as readonly string[]).includes(e.name) && kindOf(join(root, e.name)) === 'folder') continue;
    const what = kindOf(join(root, e.name)) === 'folder' ? 'folder' : 'file';
    problems.push({
      path: join(root, e.name),
      message: `golden/ holds only the folders good/ and bad/, and ${e.name} is a ${what} that says neither (fix: move it to golden/good/NAME/ or golden/bad/NAME/)`,
    });
  }
  for (const kind of SOLUTION_KINDS) {
    const kindDir = join(root, kind);
    if (kindOf(kindDir) !== 'folder') continue;
    for (const e of entries(kindDir)) {
      const dir = join(kindDir, e.name);
      if (kindOf(dir) !== 'folder') {
        problems.push({
          path: dir,
          message: `each ${kind} solution is a folder holding solve.sh, and ${kind}/${e.name} is a file (fix: move it to ${kind}/NAME/solve.sh)`,
        });
        continue;
      }
      if (kindOf(join(dir, 'solve.sh')) !== 'file') {
        problems.push({
          path: dir,
          message: `no solve.sh in ${kind}/${e.name}, so the oracle has nothing to run (fix: add ${kind}/${e.name}/solve.sh, the script that solves the task)`,
        });
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
  const kindAtPath = kindOf(path);
  if (kindAtPath === undefined) return { value: DEFAULT_EXPECT[kind] };
  if (kindAtPath === 'folder')
    return { problem: `expect is a folder (fix: make it a file holding one expectation, such as >= 0.5)` };
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch (err) {
    return { problem: `expect cannot be read: ${(err as Error).message} (fix: make it a readable file)` };
  }
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
