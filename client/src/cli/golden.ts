/**
 * `hud-studio check --golden [PATH...]`: runs golden answer rows and Harbor
 * golden solutions through the grading path only and fails on a mismatch
 * (docs/grader-workbench.md).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UsageError } from '../engine/errors';
import { GOLDEN_SUFFIX, goldenPathFor } from '../../../common/golden/rows';
import { readGolden, type GoldenFile } from '../engine/golden/file';
import { hasHarborGolden, readHarborGolden } from '../../../common/golden/solutions';
import { runHarborSolution } from '../engine/golden/harbor';
import { describeOutcome, runGoldenRow, type GoldenOutcome } from '../engine/golden/run';
import { selectRuntime } from '../engine/runTask';
import { EXIT, type CliIO } from './io';
import { parse } from './options';

const OPTIONS = {
  golden: { type: 'boolean', default: true },
  runtime: { type: 'string', default: 'auto' },
  image: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

export interface GoldenSources {
  /** `<env>.golden.jsonl` files. */
  files: string[];
  /** Harbor task folders with a golden/ folder. */
  harbor: string[];
}

/**
 * What PATHs name: a golden file, the one beside an env.py, a Harbor task
 * folder with golden/, or all of these under a folder.
 */
export function goldenSources(paths: readonly string[], cwd: string): GoldenSources {
  const files = new Set<string>();
  const harbor = new Set<string>();
  for (const p of paths) {
    const abs = resolve(cwd, p);
    if (!existsSync(abs))
      throw new UsageError(`${p} does not exist`, {
        hint: 'pass env.py files, golden files, Harbor task folders or folders holding them',
      });
    if (statSync(abs).isDirectory()) walk(abs, 4, files, harbor);
    else if (abs.endsWith(GOLDEN_SUFFIX)) files.add(abs);
    else if (existsSync(goldenPathFor(abs))) files.add(goldenPathFor(abs));
    else if (basename(abs) === 'task.toml' && hasHarborGolden(dirname(abs))) harbor.add(dirname(abs));
  }
  return { files: [...files].sort(), harbor: [...harbor].sort() };
}

function walk(dir: string, depth: number, files: Set<string>, harbor: Set<string>): void {
  if (hasHarborGolden(dir)) {
    harbor.add(dir);
    return; // a Harbor task's folders (golden/, tests/, solution/) hold no more tasks
  }
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory() && depth > 0) walk(p, depth - 1, files, harbor);
    else if (e.isFile() && e.name.endsWith(GOLDEN_SUFFIX)) files.add(p);
  }
}

export async function goldenCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  const sources = goldenSources(positionals.length ? positionals : ['.'], io.cwd);
  const files = sources.files.map(readGolden);
  if (!files.length && !sources.harbor.length) {
    io.stderr.write(
      `hud-studio: no ${GOLDEN_SUFFIX} files or Harbor golden/ folders found (docs/grader-workbench.md describes them)\n`,
    );
    return EXIT.error;
  }
  const selected = await selectRuntime({
    runtime: values.runtime,
    consent: { serviceAccess: false, sharedSecrets: false },
  });
  const outcomes: { file: Pick<GoldenFile, 'path'>; o: GoldenOutcome }[] = [];
  let bad = 0;
  for (const file of files) {
    for (const p of file.problems) {
      bad++;
      io.stdout.write(`${file.path}:${p.line} error ${p.message}\n`);
    }
    for (const row of file.rows) {
      const o = await runGoldenRow(file, row, {
        cwd: io.cwd,
        runtime: values.runtime,
        context: { selected },
        ...(values.image ? { image: values.image } : {}),
      });
      outcomes.push({ file, o });
      if (!values.json) io.stdout.write(`${describeOutcome(file, o)}\n`);
    }
  }
  for (const taskDir of sources.harbor) {
    const golden = readHarborGolden(taskDir);
    for (const p of golden.problems) {
      bad++;
      io.stdout.write(`${p.path} error ${p.message}\n`);
    }
    for (const s of golden.solutions) {
      const file = { path: join(s.dir, 'solve.sh') };
      const o = await runHarborSolution(golden, s, { cwd: io.cwd });
      outcomes.push({ file, o });
      if (!values.json) io.stdout.write(`${describeOutcome(file, o)}\n`);
    }
  }
  const failed = outcomes.filter(({ o }) => !o.passed).length;
  if (values.json) {
    const rows = outcomes.map(({ file, o }) => ({
      file: file.path,
      line: o.row.line,
      task: o.row.task,
      passed: o.passed,
      expected: o.expected,
      reward: o.reward,
      subscores: o.subscores,
      actualSubscores: (o.result?.subscores ?? []).map((s) => ({ name: s.name, value: s.value })),
      error: o.error ?? null,
    }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  } else io.stderr.write(`${outcomes.length - failed} passed, ${failed} failed, ${bad} unreadable row(s)\n`);
  return failed || bad ? EXIT.error : EXIT.ok;
}
