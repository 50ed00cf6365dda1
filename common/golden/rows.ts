/**
 * Golden answer rows: `<env>.golden.jsonl` beside an env.py, one row per
 * line, `{task, answer, expect, subscores?}` (docs/grader-workbench.md).
 * Parsed without reading or running anything, so the engine and the
 * language server read rows the same way.
 */
import { basename, dirname, extname, join } from 'node:path';
import { z } from 'zod';
import { Expectation } from './expect';

export const GOLDEN_SUFFIX = '.golden.jsonl';

export const GoldenRowSchema = z
  .object({
    /** NAME, NAME[i] or N of a task in the env.py beside the file. */
    task: z.string().min(1),
    answer: z.unknown(),
    expect: Expectation,
    /** Expectations per subscore name (nested subscores as `parent/child`). */
    subscores: z.record(z.string(), Expectation).optional(),
    note: z.string().optional(),
  })
  .strict();

export interface GoldenRow extends z.infer<typeof GoldenRowSchema> {
  /** 1-based line of the row in its file. */
  line: number;
}

export interface GoldenProblem {
  /** 1-based. */
  line: number;
  message: string;
}

/** `env.py` -> `env.golden.jsonl` beside it. */
export function goldenPathFor(envFile: string): string {
  return join(dirname(envFile), `${basename(envFile, extname(envFile))}${GOLDEN_SUFFIX}`);
}

/** `env.golden.jsonl` -> `env.py` beside it. */
export function envFileFor(goldenFile: string): string {
  return join(dirname(goldenFile), `${basename(goldenFile, GOLDEN_SUFFIX)}.py`);
}

export function isGoldenFile(path: string): boolean {
  return path.endsWith(GOLDEN_SUFFIX);
}

/** Parses golden rows; a bad line becomes a problem naming the line and the fix, never an exception. */
export function parseGolden(text: string): { rows: GoldenRow[]; problems: GoldenProblem[] } {
  const rows: GoldenRow[] = [];
  const problems: GoldenProblem[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim() || raw.trimStart().startsWith('//')) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      problems.push({
        line,
        message: `not JSON: ${(err as Error).message} (fix: one JSON object per line, {"task": NAME, "answer": ..., "expect": 1})`,
      });
      return;
    }
    const r = GoldenRowSchema.safeParse(json);
    if (!r.success) {
      const issue = r.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'row';
      problems.push({
        line,
        message: `${where}: ${issue?.message ?? 'invalid'} (a row is {"task": NAME, "answer": ..., "expect": 1})`,
      });
      return;
    }
    if (!('answer' in r.data)) {
      problems.push({ line, message: 'answer: missing (use "" for an empty answer)' });
      return;
    }
    rows.push({ ...r.data, line });
  });
  return { rows, problems };
}
