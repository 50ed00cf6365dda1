/** Errors (with the phase that failed) and warnings, shown above everything else. */
import type { RunningTrace } from '../../../../common/trace/schema';
import { h } from '../dom';
import { valueText } from '../format';

export function renderProblems(trace: RunningTrace): HTMLElement | null {
  const items: HTMLElement[] = [];
  if (trace.error) {
    const failedPhase = trace.phases.find((p) => p.name === trace.error?.phase);
    const failedSteps = failedPhase?.steps.filter((s) => s.status === 'error') ?? [];
    items.push(
      h(
        'div',
        { class: 'problem error', attrs: { role: 'alert', 'data-testid': 'rollout-error' } },
        h('strong', null, `Failed in the ${trace.error.phase} phase`),
        trace.error.code ? h('span', { class: 'badge' }, trace.error.code) : null,
        h('pre', { class: 'problem-msg' }, trace.error.message),
        failedSteps.map((st) => h('div', null, `step ${st.step} failed${st.detail ? `: ${st.detail}` : ''}`)),
      ),
    );
  }
  for (const phase of trace.phases) {
    const failed = phase.steps.filter((s) => s.status === 'error');
    if (!phase.error && failed.length === 0) continue;
    if (phase.error && trace.error?.message === phase.error && trace.error.phase === phase.name) continue;
    items.push(
      h(
        'div',
        { class: 'problem error' },
        h('strong', null, `${phase.name} phase`),
        phase.error ? h('pre', { class: 'problem-msg' }, phase.error) : null,
        failed.map((s) => h('div', null, `step ${s.step} failed${s.detail ? `: ${s.detail}` : ''}`)),
      ),
    );
  }
  if (trace.result?.isError && !trace.error) {
    items.push(
      h(
        'div',
        { class: 'problem error' },
        h('strong', null, 'The grade is an error result'),
        h('pre', { class: 'problem-msg' }, valueText(trace.result.content)),
      ),
    );
  }
  for (const w of trace.warnings)
    items.push(
      h('div', { class: 'problem warning', attrs: { 'data-testid': 'warning' } }, h('strong', null, 'Warning'), ' ', w),
    );
  return items.length ? h('section', { class: 'problems', attrs: { id: 'section-problems' } }, items) : null;
}
