/**
 * Runs golden rows through the grading path only: each row's answer goes to
 * its task's first yield through the engine's one run entry, no agent, and
 * the grade is held against the row's expectations (docs/grader-workbench.md).
 */
import { FixedAgent } from '../agents/fixed';
import { errorMessage } from '../errors';
import type { RunContext, RunTask, TaskRunRequest } from '../runRequest';
import type { GradeResult, SubScoreT } from '../../../../common/trace/schema';
import { describeExpectation, satisfies } from '../../../../common/golden/expect';
import type { GoldenRow } from '../../../../common/golden/rows';
import type { GoldenFile } from './file';

export interface SubscoreMismatch {
  name: string;
  expected: string;
  actual: number | null;
}

export interface GoldenOutcome {
  row: GoldenRow;
  ref: string;
  passed: boolean;
  expected: string;
  reward: number | null;
  /** Subscores that missed their expectation. */
  subscores: SubscoreMismatch[];
  result: GradeResult | null;
  error?: string;
}

export interface GoldenRunOptions {
  cwd: string;
  runtime: string;
  image?: string;
  /** What the editor adds to every run of its own (endpoint, variables, limits). */
  request?: Partial<Pick<TaskRunRequest, 'dockerHost' | 'credentials' | 'sdk' | 'limits'>>;
  context?: RunContext;
  run?: RunTask;
}

export function goldenRef(file: Pick<GoldenFile, 'envFile'>, row: Pick<GoldenRow, 'task'>): string {
  return `${file.envFile}::${row.task}`;
}

export async function runGoldenRow(file: GoldenFile, row: GoldenRow, opts: GoldenRunOptions): Promise<GoldenOutcome> {
  const run = opts.run ?? (await import('../runTask')).runTask;
  const ref = goldenRef(file, row);
  const expected = describeExpectation(row.expect);
  const req: TaskRunRequest = {
    ...opts.request,
    ref,
    cwd: opts.cwd,
    runtime: opts.runtime,
    agent: { instance: new FixedAgent(row.answer) },
    consent: { serviceAccess: false, sharedSecrets: false },
    traceDir: null,
    ...(opts.image ? { image: opts.image } : {}),
  };
  try {
    const done = await run(req, opts.context ?? {});
    if (done.status !== 'completed') {
      const error = done.error?.message ?? done.status;
      return { row, ref, passed: false, expected, reward: null, subscores: [], result: done.result, error };
    }
    const reward = done.result?.reward ?? null;
    const subscores = subscoreMismatches(row, done.result);
    const passed = satisfies(row.expect, reward) && subscores.length === 0;
    return { row, ref, passed, expected, reward, subscores, result: done.result };
  } catch (err) {
    return { row, ref, passed: false, expected, reward: null, subscores: [], result: null, error: errorMessage(err) };
  }
}

function subscoreMismatches(row: GoldenRow, result: GradeResult | null): SubscoreMismatch[] {
  const values = new Map<string, number>();
  const walk = (subs: SubScoreT[], prefix: string): void => {
    for (const s of subs) {
      const name = prefix ? `${prefix}/${s.name}` : s.name;
      values.set(name, s.value);
      if (s.children) walk(s.children, name);
    }
  };
  walk(result?.subscores ?? [], '');
  const out: SubscoreMismatch[] = [];
  for (const [name, expect] of Object.entries(row.subscores ?? {})) {
    const actual = values.get(name) ?? null;
    if (!satisfies(expect, actual)) out.push({ name, expected: describeExpectation(expect), actual });
  }
  return out;
}

/** One line per row: `env.golden.jsonl:3 count FAIL reward 0.40, expected == 1 (enough 0.00, expected == 1)`. */
export function describeOutcome(file: Pick<GoldenFile, 'path'>, o: GoldenOutcome): string {
  const where = `${file.path}:${o.row.line} ${o.row.task}`;
  const reward = o.reward === null ? 'none' : o.reward.toFixed(2);
  if (o.error) return `${where} FAIL ${o.error}`;
  const subs = o.subscores.map(
    (s) => `${s.name} ${s.actual === null ? 'missing' : s.actual.toFixed(2)}, expected ${s.expected}`,
  );
  const verdict = o.passed ? 'ok' : 'FAIL';
  const line = `${where} ${verdict} reward ${reward}, expected ${o.expected}${subs.length ? ` (${subs.join('; ')})` : ''}`;
  if (o.passed || !o.result?.subscores.length) return line;
  return `${line}\n    subscores: ${o.result.subscores.map((s) => `${s.name} ${s.value.toFixed(2)}`).join(', ')}`;
}
