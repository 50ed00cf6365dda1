/** Two rollouts of one task side by side: reward, subscores and a line diff of the answers. */
import type { RunningTrace, SubScoreT } from '../../../../common/trace/schema';
import { diffLines, splitLines } from '../diff';
import { h } from '../dom';
import { formatClock, formatDuration, formatReward, trimNumber, valueText } from '../format';
import { rewardLabel, statusBadge, totalMs } from './header';

export function renderCompare(left: RunningTrace, right: RunningTrace): HTMLElement {
  const sameTask =
    left.task.env === right.task.env && left.task.id === right.task.id && left.task.slug === right.task.slug;
  const sameVersion = left.task.sourceHash === right.task.sourceHash;
  const dl = left.result?.reward;
  const dr = right.result?.reward;
  const delta = typeof dl === 'number' && typeof dr === 'number' ? dr - dl : null;
  // A regrade graded its original's answer again: a new source hash is the point, not a warning.
  const regradeSide = right.regrade?.of === left.rolloutId ? 'B' : left.regrade?.of === right.rolloutId ? 'A' : null;
  return h(
    'div',
    { class: 'compare', attrs: { 'data-testid': 'compare' } },
    h(
      'h1',
      { class: 'hdr-title' },
      'Compare ',
      h('span', { class: 'env' }, left.task.env),
      h('span', { class: 'sep' }, ' / '),
      h('span', { class: 'tid' }, left.task.id),
    ),
    !sameTask
      ? h(
          'div',
          { class: 'problem warning', attrs: { role: 'alert' } },
          `These rollouts ran different tasks (${left.task.ref} vs ${right.task.ref}); the comparison may not mean much.`,
        )
      : regradeSide
        ? regradeBanner(regradeSide, regradeSide === 'B' ? right : left, regradeSide === 'B' ? left : right)
        : !sameVersion
          ? h(
              'div',
              { class: 'problem warning' },
              'The task source or args changed between these rollouts (different source hash).',
            )
          : null,
    h(
      'div',
      { class: 'compare-cols' },
      side(left, 'left'),
      h(
        'div',
        { class: 'compare-delta', attrs: { 'data-testid': 'reward-delta' } },
        h('div', { class: 'muted' }, 'Δ reward'),
        h(
          'div',
          { class: `delta${delta === null ? '' : delta > 0 ? ' up' : delta < 0 ? ' down' : ''}` },
          delta === null ? '—' : `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${trimNumber(Math.abs(delta))}`,
        ),
      ),
      side(right, 'right'),
    ),
    h('section', { class: 'card' }, h('h2', null, 'Subscores'), subscoreCompare(left, right)),
    h('section', { class: 'card' }, h('h2', null, 'Answer diff'), answerDiff(left.answer, right.answer)),
  );
}

function regradeBanner(which: 'A' | 'B', regrade: RunningTrace, original: RunningTrace): HTMLElement {
  const other = which === 'A' ? 'B' : 'A';
  const before = original.result?.reward;
  const after = regrade.result?.reward;
  return h(
    'div',
    { class: 'problem info regrade', attrs: { 'data-testid': 'regrade-of' } },
    h('span', { class: 'badge' }, 'regrade'),
    ` ${which} graded ${other}'s recorded answer again with the grader as it is now`,
    regrade.regrade ? ` (grader ${regrade.regrade.graderHash.slice(0, 12)})` : '',
    `: reward ${formatReward(before)} -> ${formatReward(after)}`,
    original.task.sourceHash !== regrade.task.sourceHash ? '; the template changed since the original ran.' : '.',
  );
}

function side(t: RunningTrace, which: 'left' | 'right'): HTMLElement {
  return h(
    'div',
    { class: `compare-side ${which}`, attrs: { 'data-testid': `compare-${which}` } },
    h('div', { class: 'muted' }, which === 'left' ? 'A' : 'B', ' · ', t.rolloutId),
    h('div', { class: 'reward-value', attrs: { 'data-testid': 'reward' } }, formatReward(t.result?.reward)),
    h('div', { class: 'reward-label' }, rewardLabel(t)),
    h(
      'div',
      { attrs: { 'data-testid': `compare-${which}-agent` } },
      statusBadge(t.status),
      ' ',
      // The model (llm: PROVIDER/MODEL) when a model answered: two models' rollouts are told apart here.
      `agent ${t.agent.detail ?? t.agent.kind}`,
      ' · ',
      formatDuration(totalMs(t)),
      tokensText(t),
    ),
    h('div', { class: 'muted' }, formatClock(t.startedAt)),
    t.error ? h('div', { class: 'problem error' }, `Failed in the ${t.error.phase} phase: ${t.error.message}`) : null,
  );
}

/** The episode's model tokens, when a model answered. */
function tokensText(t: RunningTrace): string {
  const used = t.agentSteps.flatMap((s) => (s.usage ? [s.usage] : []));
  if (!used.length) return '';
  const input = used.reduce((a, u) => a + u.input, 0);
  const output = used.reduce((a, u) => a + u.output, 0);
  return ` · tokens in ${input} out ${output}`;
}

interface FlatSub {
  path: string;
  sub: SubScoreT;
}

function flatten(subs: SubScoreT[] | undefined, prefix = ''): FlatSub[] {
  const out: FlatSub[] = [];
  for (const s of subs ?? []) {
    const path = prefix ? `${prefix} › ${s.name}` : s.name;
    out.push({ path, sub: s });
    out.push(...flatten(s.children, path));
  }
  return out;
}

function subscoreCompare(left: RunningTrace, right: RunningTrace): HTMLElement {
  const a = flatten(left.result?.subscores);
  const b = flatten(right.result?.subscores);
  const paths = [...new Set([...a.map((x) => x.path), ...b.map((x) => x.path)])];
  if (paths.length === 0) return h('p', { class: 'muted' }, 'Neither rollout has subscores.');
  const cell = (f: FlatSub | undefined): HTMLElement =>
    h('td', { class: 'num' }, f ? `${trimNumber(f.sub.value)} × ${trimNumber(f.sub.weight)}` : '—');
  return h(
    'table',
    { class: 'subscores', attrs: { 'data-testid': 'compare-subscores' } },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, 'Subscore'),
        h('th', { class: 'num' }, 'A (value × weight)'),
        h('th', { class: 'num' }, 'B (value × weight)'),
        h('th', { class: 'num' }, 'Δ contribution'),
      ),
    ),
    h(
      'tbody',
      null,
      paths.map((p) => {
        const fa = a.find((x) => x.path === p);
        const fb = b.find((x) => x.path === p);
        // Contribution (value × weight), so a penalty that stopped applying reads as a gain.
        const d = fa && fb ? fb.sub.value * fb.sub.weight - fa.sub.value * fa.sub.weight : null;
        return h(
          'tr',
          { class: `sub-row${d !== null && Math.abs(d) >= 1e-12 ? ' changed' : ''}`, data: { name: p } },
          h(
            'td',
            { class: 'sub-name' },
            p,
            (fa ?? fb)!.sub.weight < 0 ? h('span', { class: 'badge penalty' }, 'penalty') : null,
          ),
          cell(fa),
          cell(fb),
          h(
            'td',
            { class: `num${d !== null && d < 0 ? ' negative' : ''}` },
            d === null ? 'only in one' : Math.abs(d) < 1e-12 ? '=' : `${d > 0 ? '+' : '−'}${trimNumber(Math.abs(d))}`,
          ),
        );
      }),
    ),
  );
}

function answerDiff(a: unknown, b: unknown): HTMLElement {
  const ops = diffLines(splitLines(valueText(a)), splitLines(valueText(b)));
  if (ops.length === 0) return h('p', { class: 'muted' }, 'Neither rollout recorded an answer.');
  if (ops.every((o) => o.kind === 'same'))
    return h(
      'div',
      null,
      h('p', { class: 'muted' }, 'The answers are identical.'),
      h('pre', { class: 'block' }, valueText(a)),
    );
  return h(
    'div',
    { class: 'diff', attrs: { 'data-testid': 'answer-diff', role: 'table' } },
    ops.map((o) =>
      h(
        'div',
        { class: `diff-line ${o.kind}` },
        h('span', { class: 'diff-ln' }, o.left === undefined ? '' : String(o.left)),
        h('span', { class: 'diff-ln' }, o.right === undefined ? '' : String(o.right)),
        h('span', { class: 'diff-mark' }, o.kind === 'add' ? '+' : o.kind === 'del' ? '-' : ' '),
        h('span', { class: 'diff-text' }, o.text),
      ),
    ),
  );
}
