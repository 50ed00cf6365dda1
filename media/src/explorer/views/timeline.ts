/**
 * Phases and their steps on one time axis (actor: setup, prompt, agent,
 * answer, grade, teardown; verifier: setup, grade), with durations. A click
 * jumps to what the step produced.
 */
import type { PhaseName, RunningTrace, StepName, TraceStep } from '../../../../common/trace/schema';
import { h } from '../dom';
import { between, formatDuration } from '../format';

export interface StepTarget {
  phase: PhaseName;
  step: StepName;
  /** Milliseconds since the rollout started. */
  offsetMs: number;
  /** Set when an agent step's tick was clicked: that step's `index`. */
  agentIndex?: number;
}

export function renderTimeline(
  trace: RunningTrace,
  onJump: (target: StepTarget) => void,
  nowIso: string,
): HTMLElement | null {
  if (trace.phases.length === 0) return null;
  const t0 = Date.parse(trace.startedAt);
  const ends = trace.phases
    .flatMap((p) => [p.endedAt, ...p.steps.map((s) => s.endedAt ?? s.startedAt)])
    .filter((x): x is string => !!x);
  const tEnd = Math.max(
    Date.parse(trace.endedAt ?? nowIso),
    ...ends.map((e) => Date.parse(e)).filter(Number.isFinite),
    t0 + 1,
  );
  const span = Math.max(1, tEnd - t0);
  const pct = (iso: string | undefined, fallback: number): number => {
    const t = iso ? Date.parse(iso) : NaN;
    return (((Number.isFinite(t) ? t : fallback) - t0) / span) * 100;
  };

  const rows = trace.phases.map((phase) => {
    const phaseMs = between(phase.startedAt, phase.endedAt ?? (phase.status === 'running' ? nowIso : undefined));
    const segments = phase.steps.map((s) => {
      const left = pct(s.startedAt, t0);
      const right = pct(s.endedAt, s.status === 'running' ? tEnd : Date.parse(s.startedAt));
      const seg = h('button', {
        class: `tl-seg step-${s.step} st-${s.status}`,
        title: `${phase.name} ${s.step}: ${stepDuration(s, nowIso)}${s.detail ? ` — ${s.detail}` : ''}`,
        attrs: { type: 'button', 'aria-label': `${phase.name} ${s.step}` },
        on: { click: () => onJump(target(trace, phase.name, s)) },
      });
      seg.style.left = `${clamp(left)}%`;
      seg.style.width = `${Math.max(0.4, clamp(right) - clamp(left))}%`;
      return seg;
    });
    // Each agent step is a tick on the actor's track at the time it was recorded.
    const ticks =
      phase.name === 'actor'
        ? trace.agentSteps.map((a) => {
            const tick = h('button', {
              class: 'tl-tick',
              title: `agent step ${a.index}: ${a.toolCalls.length} tool call${a.toolCalls.length === 1 ? '' : 's'}`,
              attrs: { type: 'button', 'aria-label': `agent step ${a.index}`, 'data-testid': `tick-agent-${a.index}` },
              on: {
                click: () =>
                  onJump({
                    phase: 'actor',
                    step: 'agent',
                    offsetMs: between(trace.startedAt, a.at) ?? 0,
                    agentIndex: a.index,
                  }),
              },
            });
            tick.style.left = `${clamp(pct(a.at, t0))}%`;
            return tick;
          })
        : [];
    const chips = phase.steps.map((s) =>
      h(
        'button',
        {
          class: `tl-chip step-${s.step} st-${s.status}`,
          attrs: { type: 'button', 'data-testid': `step-${phase.name}-${s.step}` },
          on: { click: () => onJump(target(trace, phase.name, s)) },
        },
        h('span', { class: 'tl-chip-name' }, s.step),
        ' ',
        h('span', { class: 'tl-chip-dur' }, stepDuration(s, nowIso)),
      ),
    );
    return h(
      'div',
      { class: `tl-phase phase-${phase.name} st-${phase.status}`, attrs: { 'data-testid': `phase-${phase.name}` } },
      h(
        'div',
        { class: 'tl-label' },
        h('strong', null, phase.name),
        ' ',
        h('span', { class: 'muted' }, `${formatDuration(phaseMs)} · ${phase.status}`),
      ),
      h('div', { class: 'tl-track' }, segments, ticks),
      h('div', { class: 'tl-chips' }, chips),
    );
  });
  return h('section', { class: 'timeline', attrs: { id: 'section-timeline' } }, h('h2', null, 'Timeline'), rows);
}

function stepDuration(s: TraceStep, nowIso: string): string {
  if (s.status === 'running') return `running ${formatDuration(between(s.startedAt, nowIso))}`;
  return formatDuration(between(s.startedAt, s.endedAt ?? s.startedAt));
}

function target(trace: RunningTrace, phase: PhaseName, s: TraceStep): StepTarget {
  return { phase, step: s.step, offsetMs: between(trace.startedAt, s.startedAt) ?? 0 };
}

function clamp(n: number): number {
  return Math.min(100, Math.max(0, n));
}
