/**
 * `hud-studio check --golden [PATH...]`: runs golden answer rows through the
 * grading path only and fails on a mismatch (docs/grader-workbench.md).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../engine/errors';
import { GOLDEN_SUFFIX, goldenPathFor, readGolden, type GoldenFile } from '../engine/golden/file';
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

/** Golden files named by PATHs: a golden file itself, the one beside an env.py, or those under a folder. */
export function goldenFiles(paths: readonly string[], cwd: string): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const abs = resolve(cwd, p);
    if (!existsSync(abs))
      throw new UsageError(`${p} does not exist`, { hint: 'pass env.py files, golden files or folders' });
    if (statSync(abs).isDirectory()) for (const f of walk(abs, 4)) out.add(f);
    else if (abs.endsWith(GOLDEN_SUFFIX)) out.add(abs);
    else if (existsSync(goldenPathFor(abs))) out.add(goldenPathFor(abs));
  }
  return [...out].sort();
}

function walk(dir: string, depth: number): string[] {
  const found: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const p = join(dir, e.name);
    if (e.isDirectory() && depth > 0) found.push(...walk(p, depth - 1));
    else if (e.isFile() && e.name.endsWith(GOLDEN_SUFFIX)) found.push(p);
  }
  return found;
}

export async function goldenCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  const files = goldenFiles(positionals.length ? positionals : ['.'], io.cwd).map(readGolden);
  if (!files.length) {
    io.stderr.write(`hud-studio: no ${GOLDEN_SUFFIX} files found (docs/grader-workbench.md describes them)\n`);
    return EXIT.error;
  }
  const selected = await selectRuntime({
    runtime: values.runtime,
    consent: { serviceAccess: false, sharedSecrets: false },
  });
  const outcomes: { file: GoldenFile; o: GoldenOutcome }[] = [];
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
