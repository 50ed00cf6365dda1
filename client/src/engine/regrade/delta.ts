/** Reward and subscore changes between a stored rollout and its regrade (docs/grader-workbench.md). */
import { formatScore } from '../grade';
import type { GradeResult, SubScoreT } from '../../../../common/trace/schema';

export interface ScoreChange {
  name: string;
  before: number | null;
  after: number | null;
}

export type Direction = 'up' | 'down' | 'unchanged';

export interface GradeDelta {
  before: number | null;
  after: number | null;
  direction: Direction;
  /** Subscores whose value changed, appeared or vanished, by name. */
  subscores: ScoreChange[];
}

export function gradeDelta(before: GradeResult | null, after: GradeResult | null): GradeDelta {
  const b = before?.reward ?? null;
  const a = after?.reward ?? null;
  return { before: b, after: a, direction: directionOf(b, a), subscores: subscoreChanges(before, after) };
}

function directionOf(before: number | null, after: number | null): Direction {
  const b = before ?? 0;
  const a = after ?? 0;
  if (Math.abs(a - b) < 1e-9) return before === null && after !== null ? 'up' : 'unchanged';
  return a > b ? 'up' : 'down';
}

function flatten(subs: SubScoreT[], prefix: string, into: Map<string, number>): void {
  for (const s of subs) {
    const name = prefix ? `${prefix}/${s.name}` : s.name;
    into.set(name, s.value);
    if (s.children) flatten(s.children, name, into);
  }
}

function subscoreChanges(before: GradeResult | null, after: GradeResult | null): ScoreChange[] {
  const b = new Map<string, number>();
  const a = new Map<string, number>();
  flatten(before?.subscores ?? [], '', b);
  flatten(after?.subscores ?? [], '', a);
  const changes: ScoreChange[] = [];
  for (const name of new Set([...b.keys(), ...a.keys()])) {
    const x = b.get(name) ?? null;
    const y = a.get(name) ?? null;
    if (x === null || y === null || Math.abs(x - y) >= 1e-9) changes.push({ name, before: x, after: y });
  }
  return changes;
}

/** `0.40 -> 1.00`; a missing reward shows as `-`. */
export function formatChange(before: number | null, after: number | null): string {
  const f = (x: number | null): string => (x === null ? '-' : formatScore(x));
  return `${f(before)} -> ${f(after)}`;
}

export interface RegradeSummary {
  total: number;
  up: number;
  down: number;
  unchanged: number;
  /** Rollouts that could not be regraded (no answer, errored regrade, Harbor shared mode). */
  failed: number;
  meanBefore: number | null;
  meanAfter: number | null;
}

export function summarise(deltas: (GradeDelta | null)[]): RegradeSummary {
  const ok = deltas.filter((d): d is GradeDelta => d !== null);
  const mean = (xs: (number | null)[]): number | null =>
    xs.length ? xs.reduce<number>((s, x) => s + (x ?? 0), 0) / xs.length : null;
  return {
    total: deltas.length,
    up: ok.filter((d) => d.direction === 'up').length,
    down: ok.filter((d) => d.direction === 'down').length,
    unchanged: ok.filter((d) => d.direction === 'unchanged').length,
    failed: deltas.length - ok.length,
    meanBefore: mean(ok.map((d) => d.before)),
    meanAfter: mean(ok.map((d) => d.after)),
  };
}
