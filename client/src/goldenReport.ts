/**
 * How a golden item's result reads in the Testing view: the verdict, one
 * line with both rewards and the subscores that missed, and the expected
 * and actual values side by side for the diff peek (docs/grader-workbench.md).
 */
import type { GoldenOutcome } from './engine/golden/run';
import { formatScore } from './engine/grade';

export interface GoldenReport {
  verdict: 'passed' | 'failed' | 'errored';
  message: string;
  /** One line per value: `reward == 1`, then each subscore with an expectation. */
  expected?: string;
  /** The same lines with what the grader gave, then every other subscore. */
  actual?: string;
}

const shown = (v: number | null): string => (v === null ? 'none' : formatScore(v));

/** The parts of a golden outcome its report reads. */
export type ReportedOutcome = Pick<GoldenOutcome, 'passed' | 'reward' | 'expected' | 'subscores' | 'result' | 'error'>;

export function goldenReport(o: ReportedOutcome): GoldenReport {
  if (o.error) {
    const got = o.reward === null ? '' : ` (reward ${shown(o.reward)}, expected ${o.expected})`;
    return { verdict: 'errored', message: `${o.error}${got}` };
  }
  if (o.passed) return { verdict: 'passed', message: `reward ${shown(o.reward)}, expected ${o.expected}` };
  const missed = o.subscores.map((s) => `${s.name} ${shown(s.actual)}, expected ${s.expected}`);
  const message = [`reward ${shown(o.reward)}, expected ${o.expected}`, ...missed].join('; ');
  const expected = [`reward ${o.expected}`, ...o.subscores.map((s) => `${s.name} ${s.expected}`)];
  const actual = [`reward ${shown(o.reward)}`, ...o.subscores.map((s) => `${s.name} ${shown(s.actual)}`)];
  const checked = new Set(o.subscores.map((s) => s.name));
  for (const s of o.result?.subscores ?? []) {
    if (!checked.has(s.name)) actual.push(`${s.name} ${formatScore(s.value)}`);
  }
  return { verdict: 'failed', message, expected: expected.join('\n'), actual: actual.join('\n') };
}
