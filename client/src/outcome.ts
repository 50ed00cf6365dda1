/**
 * How a finished rollout is shown: the short text beside a task line, the
 * hover breakdown, and the Testing API verdict. One place, so the editor,
 * the Runs view and the Testing view always agree.
 */
import type { RolloutEvent } from '../../common/events';
import { formatScore as score } from './engine/grade';
import type { RolloutOutcome } from './engine/outcome';
import type { SubScoreT } from '../../common/trace/schema';
import { withEditorFix } from './fixHint';

export type { RolloutOutcome } from './engine/outcome';
export { outcomeFromTrace } from './engine/outcome';

export type EndedEvent = Extract<RolloutEvent, { type: 'rollout.ended' }>;

export function outcomeFromEvent(e: EndedEvent, ref: string): RolloutOutcome {
  return {
    rolloutId: e.rolloutId,
    ref,
    status: e.status,
    reward: e.reward,
    result: e.result,
    error: e.error,
    tracePath: e.tracePath,
  };
}

/** What the views read of an outcome (a live `rollout.ended` event has exactly this much). */
export type ShownOutcome = Pick<RolloutOutcome, 'status' | 'reward' | 'result' | 'error'> & {
  tracePath?: string | undefined;
  noAnswer?: RolloutOutcome['noAnswer'];
};

/** Why a reward may mean nothing: nobody answered. */
export function noAnswerText(o: ShownOutcome): string | undefined {
  if (o.noAnswer === 'nop') return 'the nop agent gave no answer';
  if (o.noAnswer === 'empty') return 'the answer was empty';
  return undefined;
}

/** The error as the editor shows it: the engine's message and, when it knows one, the setting that fixes it. */
function errorText(o: ShownOutcome): string | undefined {
  return o.error ? withEditorFix(o.error.message, o.error.fix) : undefined;
}

export { formatScore as score } from './engine/grade';

/** `reward 0.83 · exact_match 1.00 · tests 0.00` (top-level subscores only). */
export function inlineText(o: ShownOutcome): string {
  if (o.status === 'cancelled') return 'cancelled';
  if (o.status === 'error' && o.reward !== null) {
    // Graded anyway (the verifier judged after the actor's grading failed): both facts, as the SDK records them.
    return `reward ${score(o.reward)} · errored${o.error ? ` in ${o.error.phase}` : ''}: ${firstLine(errorText(o) ?? 'error')}`;
  }
  if (o.status === 'error' || o.reward === null) {
    const where = o.error ? ` in ${o.error.phase}` : '';
    return `errored${where}: ${firstLine(errorText(o) ?? 'no reward')}`;
  }
  const parts = [`reward ${score(o.reward)}`];
  for (const s of o.result?.subscores ?? []) parts.push(`${s.name} ${score(s.value)}`);
  const gap = noAnswerText(o);
  if (gap) parts.push(gap);
  return parts.join(' · ');
}

function firstLine(s: string, max = 80): string {
  const line = s.split(/\r?\n/, 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Markdown-escapes untrusted text (subscore names, messages come from user code). */
export function mdEscape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`);
}

function subscoreRows(subs: SubScoreT[], depth: number, rows: string[]): void {
  for (const s of subs) {
    const indent = '\u00a0\u00a0'.repeat(depth * 2);
    const kind = s.weight < 0 ? 'penalty' : '';
    rows.push(
      `| ${indent}${mdEscape(s.name)} | ${score(s.value)} | ${score(s.weight)} ${kind} | ${score(s.value * s.weight)} |`,
    );
    if (s.children?.length) subscoreRows(s.children, depth + 1, rows);
  }
}

/** The full breakdown for a hover: reward, status, subscores table, error. */
export function hoverMarkdown(o: ShownOutcome, label: string): string {
  const out: string[] = [`**HUD Studio · ${mdEscape(label)}**`, ''];
  if (o.status === 'cancelled') out.push('Rollout cancelled.');
  else if (o.status === 'error' && o.reward !== null) {
    out.push(
      `**Reward ${score(o.reward)}, errored**${o.error ? ` in the ${o.error.phase} phase` : ''}: ${mdEscape(errorText(o) ?? 'error')}`,
    );
  } else if (o.status === 'error' || o.reward === null) {
    out.push(`**Errored**${o.error ? ` in the ${o.error.phase} phase` : ''}: ${mdEscape(errorText(o) ?? 'no reward')}`);
  } else out.push(`**Reward ${score(o.reward)}**`);
  const subs = o.result?.subscores ?? [];
  if (subs.length) {
    out.push('', '| subscore | value | weight | contribution |', '|---|---:|---:|---:|');
    subscoreRows(subs, 0, out);
  }
  if (o.result?.content !== undefined && o.result.content !== null && o.result.content !== '') {
    const c = typeof o.result.content === 'string' ? o.result.content : JSON.stringify(o.result.content);
    out.push('', mdEscape(firstLine(c, 300)));
  }
  return out.join('\n');
}

export type TestVerdict = 'passed' | 'failed' | 'errored' | 'skipped';

/**
 * The Testing API verdict: passed when the reward reaches the threshold,
 * failed below it, errored when the rollout errored (or produced no reward),
 * skipped when it was cancelled.
 */
export function verdict(o: ShownOutcome, threshold: number): TestVerdict {
  if (o.status === 'cancelled') return 'skipped';
  if (o.status === 'error' || o.reward === null || o.result?.isError) return 'errored';
  return o.reward >= threshold ? 'passed' : 'failed';
}

/** The icon of a verdict (codicon id, theme colour id), the same in every tree view. */
export function verdictIcon(o: ShownOutcome, threshold: number): { id: string; color?: string } {
  switch (verdict(o, threshold)) {
    case 'passed':
      return { id: 'pass', color: 'testing.iconPassed' };
    case 'failed':
      return { id: 'error', color: 'testing.iconFailed' };
    case 'errored':
      return { id: 'warning', color: 'testing.iconErrored' };
    case 'skipped':
      return { id: 'circle-slash' };
  }
}

/**
 * The Testing message: reward against the threshold, subscores, and the phase
 * that failed. VS Code draws the first line at the end of a failed task's line
 * in place of inlineText (../inlineResults.ts), so that line carries every
 * fact inlineText would: the reward, the top-level subscores, the failed
 * phase and its message, and whether anybody answered.
 */
export function testMessage(o: ShownOutcome, threshold: number): string {
  const v = verdict(o, threshold);
  const lines: string[] = [];
  if (v === 'skipped') lines.push('Rollout cancelled.');
  else if (v === 'errored') {
    const phase = o.error ? `the ${o.error.phase} phase` : 'an unknown phase';
    const why = errorText(o) ?? (o.result?.isError ? 'the grade is marked isError' : 'no reward');
    const counted = o.reward !== null ? `reward ${score(o.reward)} (not counted) · ` : '';
    lines.push(`${counted}Rollout errored in ${phase}: ${why}`);
  } else {
    const cmp = v === 'passed' ? '>=' : '<';
    const gap = noAnswerText(o);
    const subs = (o.result?.subscores ?? []).map((s) => ` · ${s.name} ${score(s.value)}`).join('');
    lines.push(`reward ${score(o.reward!)} ${cmp} threshold ${score(threshold)}${gap ? ` (${gap})` : ''}${subs}`);
  }
  const flat: string[] = [];
  const walk = (subs: SubScoreT[], prefix: string) => {
    for (const s of subs) {
      flat.push(`  ${prefix}${s.name}: ${score(s.value)} × ${score(s.weight)}${s.weight < 0 ? ' (penalty)' : ''}`);
      if (s.children?.length) walk(s.children, `${prefix}${s.name} / `);
    }
  };
  walk(o.result?.subscores ?? [], '');
  if (flat.length) lines.push('subscores:', ...flat);
  if (o.tracePath) lines.push(`trace: ${o.tracePath}`);
  return lines.join('\n');
}
