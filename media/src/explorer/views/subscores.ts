/**
 * The grade: subscores as a table with weight-scaled bars (a bar's length is
 * the weight's share, its fill the value), penalties (negative weights) shown
 * as penalties, nested children of combine_any/combine_all expandable, and
 * grader metadata (e.g. a BashGrader's exit code and output) on expand,
 * and the judge calls a subscore was graded with under it.
 */
import type { GradeResult, JudgeCall, RunningTrace, SubScoreT } from '../../../../common/trace/schema';
import { placeJudgeCalls, type JudgeCallPlacement } from '../judgeCalls';
import { plainTextBlock } from '../ansi';
import { h, replaceChildren, type Child } from '../dom';
import { formatReward, trimNumber, valueText } from '../format';
import type { OpenState } from './openState';

export function renderGrade(trace: RunningTrace, open: OpenState): HTMLElement {
  const section = h('section', { class: 'card', attrs: { id: 'section-grade' } });
  const fill = (): void => {
    const result = trace.result;
    const actor = trace.phases.find((p) => p.name === 'actor');
    const provisional = trace.verifier && actor?.grade ? actor.grade : null;
    // Judge calls belong to the grade of record: the phase that graded it made them.
    const judged = placeJudgeCalls(result?.subscores ?? [], trace.judgeCalls);
    replaceChildren(
      section,
      h('h2', null, 'Grade'),
      result
        ? renderResult(result, 'result', open, fill, judged)
        : h(
            'p',
            { class: 'muted' },
            trace.status === 'running' ? 'Not graded yet.' : 'No grade of record (the rollout is ungraded).',
          ),
      provisional
        ? open.details(
            'provisional',
            h(
              'summary',
              null,
              `Actor's provisional grade: ${formatReward(provisional.reward)} (replaced by the verifier's grade)`,
            ),
            renderResult(provisional, 'provisional', open, fill),
          )
        : null,
      judged.unplaced.length
        ? h(
            'div',
            { class: 'judge-unplaced', attrs: { 'data-testid': 'judge-calls-unplaced' } },
            h('h3', null, 'Judge calls not matched to a subscore'),
            judgeCallList(judged.unplaced),
          )
        : null,
      trace.harbor && Object.keys(trace.harbor.rewards).length ? renderHarborRewards(trace.harbor.rewards) : null,
    );
  };
  fill();
  return section;
}

function renderResult(
  result: GradeResult,
  keyPrefix: string,
  open: OpenState,
  rerender: () => void,
  judged?: JudgeCallPlacement,
): Child[] {
  const out: Child[] = [];
  if (result.subscores.length) out.push(subscoreTable(result.subscores, keyPrefix, open, rerender, judged));
  else out.push(h('p', { class: 'muted' }, 'No subscores: the reward is a single number.'));
  if (Object.keys(result.info).length)
    out.push(open.details(`${keyPrefix}-info`, h('summary', null, 'Info'), metadataList(result.info)));
  if (result.content !== undefined && result.content !== null && result.content !== '') {
    out.push(
      h(
        'div',
        { class: 'grade-content' },
        h('span', { class: 'muted' }, 'content'),
        h('pre', { class: 'block' }, plainTextBlock(valueText(result.content))),
      ),
    );
  }
  return out;
}

function subscoreTable(
  subs: SubScoreT[],
  keyPrefix: string,
  open: OpenState,
  rerender: () => void,
  judged: JudgeCallPlacement | undefined,
): HTMLElement {
  const body = h('tbody');
  addRows(body, subs, 0, keyPrefix, open, rerender, judged);
  return h(
    'table',
    { class: 'subscores', attrs: { 'data-testid': 'subscores' } },
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        h('th', null, 'Subscore'),
        h('th', { class: 'num' }, 'Value'),
        h('th', { class: 'num' }, 'Weight'),
        h('th', { class: 'num' }, 'Contribution'),
        h('th', { class: 'bar-col' }, ''),
      ),
    ),
    body,
  );
}

function addRows(
  body: HTMLElement,
  subs: SubScoreT[],
  depth: number,
  keyPrefix: string,
  open: OpenState,
  rerender: () => void,
  judged: JudgeCallPlacement | undefined,
): void {
  // Bars share one scale per sibling group: the positive weights' sum (or the largest penalty, if bigger).
  const pos = subs.reduce((a, s) => a + Math.max(0, s.weight), 0);
  const neg = subs.reduce((a, s) => Math.max(a, -Math.min(0, s.weight)), 0);
  const scale = Math.max(pos, neg, Number.EPSILON);
  subs.forEach((s, i) => {
    const key = `${keyPrefix}/${i}:${s.name}`;
    const penalty = s.weight < 0;
    const hasChildren = !!s.children?.length;
    const hasMeta = !!s.metadata && Object.keys(s.metadata).length > 0;
    const childrenOpen = open.isOpen(`${key}#children`);
    const metaOpen = open.isOpen(`${key}#meta`);
    const toggle = (what: string) => () => {
      open.toggle(`${key}#${what}`);
      rerender();
    };
    const bar = h('div', { class: `bar${penalty ? ' penalty' : ''}` }, h('div', { class: 'bar-fill' }));
    bar.style.width = `${Math.min(100, (Math.abs(s.weight) / scale) * 100)}%`;
    (bar.firstChild as HTMLElement).style.width = `${Math.min(100, Math.max(0, s.value) * 100)}%`;
    const contribution = s.value * s.weight;
    const name = h(
      'td',
      { class: 'sub-name' },
      h('span', { class: 'indent', attrs: { 'aria-hidden': 'true' } }),
      hasChildren
        ? h(
            'button',
            {
              class: 'icon-btn',
              title: childrenOpen ? 'Hide the inputs' : 'Show the inputs',
              attrs: { type: 'button', 'aria-expanded': String(childrenOpen), 'data-testid': 'toggle-children' },
              on: { click: toggle('children') },
            },
            childrenOpen ? '▾' : '▸',
          )
        : null,
      h('span', { class: 'sub-label' }, s.name),
      penalty
        ? h('span', { class: 'badge penalty', title: 'Negative weight: subtracts from the reward' }, 'penalty')
        : null,
      hasChildren ? h('span', { class: 'muted' }, ` ${s.children?.length} inputs`) : null,
      hasMeta
        ? h(
            'button',
            {
              class: 'link meta-btn',
              attrs: { type: 'button', 'aria-expanded': String(metaOpen), 'data-testid': 'toggle-metadata' },
              on: { click: toggle('meta') },
            },
            metaOpen ? 'hide details' : 'details',
          )
        : null,
    );
    (name.firstChild as HTMLElement).style.width = `${depth * 1.25}em`;
    body.appendChild(
      h(
        'tr',
        { class: `sub-row${penalty ? ' is-penalty' : ''}`, data: { depth: String(depth), name: s.name } },
        name,
        h('td', { class: 'num' }, trimNumber(s.value)),
        h('td', { class: 'num' }, trimNumber(s.weight)),
        h(
          'td',
          { class: `num contribution${contribution < 0 ? ' negative' : ''}` },
          `${contribution < 0 ? '−' : '+'}${trimNumber(Math.abs(contribution))}`,
        ),
        h('td', { class: 'bar-col' }, bar),
      ),
    );
    if (hasMeta && metaOpen && s.metadata) {
      body.appendChild(h('tr', { class: 'sub-meta' }, h('td', { attrs: { colspan: '5' } }, metadataList(s.metadata))));
    }
    const calls = judged?.bySubscore.get(s);
    if (calls?.length) {
      body.appendChild(
        h(
          'tr',
          { class: 'sub-judges', data: { name: s.name } },
          h('td', { attrs: { colspan: '5' } }, judgeCallList(calls)),
        ),
      );
    }
    if (hasChildren && childrenOpen && s.children) addRows(body, s.children, depth + 1, key, open, rerender, judged);
  });
}

/** Judge calls, one line each: model, criterion, verdict, reason, tokens (all as text). */
function judgeCallList(calls: JudgeCall[]): HTMLElement {
  return h(
    'ul',
    { class: 'judge-calls', attrs: { 'data-testid': 'judge-calls' } },
    calls.map((c) =>
      h(
        'li',
        { class: 'judge-call' },
        h('span', { class: 'muted' }, 'judge '),
        h('code', { class: 'judge-model' }, c.model),
        c.status === 200 ? null : h('span', { class: 'badge status-error' }, `HTTP ${c.status}`),
        c.criterion ? [' · ', h('span', { class: 'judge-criterion' }, c.criterion)] : null,
        c.verdict
          ? [
              ' ',
              h(
                'span',
                { class: `badge judge-verdict ${c.verdict === 'MET' ? 'status-completed' : 'status-cancelled'}` },
                c.verdict,
              ),
            ]
          : null,
        c.reason ? [' ', h('span', { class: 'judge-reason' }, c.reason)] : null,
        c.tokens
          ? h('span', { class: 'muted judge-tokens' }, ` · tokens in ${c.tokens.input} out ${c.tokens.output}`)
          : null,
      ),
    ),
  );
}

/** Grader metadata as a definition list; multi-line strings (command output) in blocks, escapes stripped. */
function metadataList(meta: Record<string, unknown>): HTMLElement {
  return h(
    'dl',
    { class: 'meta' },
    Object.entries(meta).map(([k, v]) => {
      const text = typeof v === 'string' ? plainTextBlock(v) : valueText(v);
      const block = typeof v === 'object' && v !== null ? true : text.includes('\n') || text.length > 80;
      return [
        h('dt', null, k),
        h('dd', null, block ? h('pre', { class: 'block' }, text) : h('code', null, text === '' ? '""' : text)),
      ];
    }),
  );
}

function renderHarborRewards(rewards: Record<string, number>): HTMLElement {
  return h(
    'div',
    { class: 'harbor-rewards' },
    h('h3', null, 'Verifier metrics (reward.json)'),
    h(
      'table',
      { class: 'subscores' },
      h(
        'tbody',
        null,
        Object.entries(rewards).map(([k, v]) =>
          h('tr', null, h('td', null, k), h('td', { class: 'num' }, trimNumber(v))),
        ),
      ),
    ),
  );
}
