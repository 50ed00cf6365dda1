/** The top of the page: what ran, where, how it ended, and the reward in large type. */
import type { RunningTrace, SubstrateInfo } from '../../../../common/trace/schema';
import { h, type Child } from '../dom';
import type { OpenState } from './openState';
import { between, formatClock, formatDuration, formatReward, shortId, valueText } from '../format';

export interface HeaderActions {
  openTask(ref: string): void;
  openFile(path: string): void;
}

const VERIFIER_SUBSTRATE_TEXT: Record<RunningTrace['provider']['verifierSubstrate'], string> = {
  fresh: 'a fresh substrate',
  reused: "reused the actor's substrate",
  borrowed: 'borrowed server (may be shared with the actor)',
  none: 'no verifier',
};

export function totalMs(trace: RunningTrace): number | undefined {
  return trace.durationMs ?? between(trace.startedAt, trace.endedAt);
}

export function rewardLabel(trace: RunningTrace): string {
  if (trace.status === 'running') return 'running';
  if (trace.result === null || trace.result.reward === null)
    return trace.status === 'error' ? 'errored, ungraded' : 'ungraded';
  return trace.verifier ? 'reward (verifier)' : 'reward';
}

export function statusBadge(status: RunningTrace['status']): HTMLElement {
  return h('span', { class: `badge status-${status}`, attrs: { 'data-testid': 'status' } }, status);
}

export function renderHeader(trace: RunningTrace, actions: HeaderActions, open: OpenState): HTMLElement {
  const t = trace.task;
  const facts: [string, Child][] = [
    [
      'Task',
      h(
        'button',
        {
          class: 'link',
          title: 'Open the task source',
          attrs: { type: 'button' },
          on: { click: () => actions.openTask(t.ref) },
        },
        t.ref,
      ),
    ],
    ['Slug', t.slug || '—'],
    [
      'Args',
      Object.keys(t.args).length ? h('code', { class: 'args' }, valueText(t.args).replace(/\s*\n\s*/g, ' ')) : '(none)',
    ],
  ];
  if (trace.verifier) {
    facts.push(['Verifier', `${trace.verifier.env}/${trace.verifier.id}`]);
    if (Object.keys(trace.verifier.args).length)
      facts.push([
        'Verifier args',
        h('code', { class: 'args' }, valueText(trace.verifier.args).replace(/\s*\n\s*/g, ' ')),
      ]);
  }
  facts.push(['Agent', trace.agent.detail ? `${trace.agent.kind} (${trace.agent.detail})` : trace.agent.kind]);
  facts.push([
    'Provider',
    trace.provider.dockerHost ? `${trace.provider.kind} @ ${trace.provider.dockerHost}` : trace.provider.kind,
  ]);
  for (const phase of trace.phases)
    facts.push([`${cap(phase.name)} substrate`, substrateText(phase.substrate, phase.reused)]);
  facts.push([
    'Verifier ran on',
    h(
      'span',
      { class: `badge substrate-${trace.provider.verifierSubstrate}`, attrs: { 'data-testid': 'verifier-substrate' } },
      VERIFIER_SUBSTRATE_TEXT[trace.provider.verifierSubstrate],
    ),
  ]);
  if (trace.harbor?.environmentMode) facts.push(['Harbor verifier', `${trace.harbor.environmentMode} environment`]);
  if (trace.harbor?.agentTimedOut) facts.push(['Agent', h('span', { class: 'badge status-error' }, 'timed out')]);
  if (trace.harbor?.trialDir) {
    const dir = trace.harbor.trialDir;
    facts.push([
      'Trial dir',
      h('button', { class: 'link', attrs: { type: 'button' }, on: { click: () => actions.openFile(dir) } }, dir),
    ]);
  }
  facts.push(['Started', formatClock(trace.startedAt)]);
  facts.push(['Rollout', trace.jobId ? `${trace.rolloutId} (job ${trace.jobId})` : trace.rolloutId]);

  const title =
    t.env || t.id
      ? [h('span', { class: 'env' }, t.env), h('span', { class: 'sep' }, ' / '), h('span', { class: 'tid' }, t.id)]
      : [h('span', { class: 'tid' }, t.ref)];
  return h(
    'header',
    { class: 'hdr', attrs: { id: 'section-header' } },
    h(
      'div',
      { class: 'hdr-main' },
      h(
        'h1',
        { class: 'hdr-title' },
        title,
        ' ',
        statusBadge(trace.status),
        ' ',
        h('span', { class: 'badge kind' }, t.kind),
      ),
      t.description ? h('p', { class: 'muted' }, t.description) : null,
      h(
        'dl',
        { class: 'facts' },
        facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
      ),
      t.source
        ? open.details(
            'task-source',
            h('summary', null, 'Task source as it ran ', h('span', { class: 'muted' }, t.sourceHash)),
            h('pre', { class: 'block', attrs: { 'data-testid': 'task-source' } }, t.source),
          )
        : null,
    ),
    h(
      'div',
      { class: 'reward-box' },
      h(
        'div',
        { class: `reward-value${rewardClass(trace)}`, attrs: { 'data-testid': 'reward', 'aria-label': 'reward' } },
        formatReward(trace.result?.reward),
      ),
      h('div', { class: 'reward-label' }, rewardLabel(trace)),
      h(
        'div',
        { class: 'reward-time', attrs: { 'data-testid': 'total-time' } },
        trace.status === 'running' ? 'in progress' : `total ${formatDuration(totalMs(trace))}`,
      ),
    ),
  );
}

function rewardClass(trace: RunningTrace): string {
  const r = trace.result?.reward;
  if (r === null || r === undefined) return ' none';
  return r >= 1 ? ' full' : r <= 0 ? ' zero' : ' partial';
}

export function substrateText(s: SubstrateInfo | null, reused: boolean): string {
  if (!s) return reused ? "actor's (reused)" : '—';
  const parts = [`${s.provider} ${shortId(s.id)}`, `isolation: ${s.isolation}`];
  if (s.image) parts.push(`image ${s.image}${s.imageId ? ` (${shortId(s.imageId.replace(/^sha256:/, ''))})` : ''}`);
  if (s.address) parts.push(s.address);
  if (s.network) parts.push(`network ${s.network}`);
  if (reused) parts.push('reused');
  return parts.join(' · ');
}

export function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
