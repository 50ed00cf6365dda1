/** Logs per phase, one tab each; the viewers live across re-renders so search and scroll survive live updates. */
import type { PhaseName, RunningTrace } from '../../../../common/trace/schema';
import { h, replaceChildren } from '../dom';
import { LogViewer } from './logViewer';

export class LogsSection {
  readonly el: HTMLElement;
  private readonly tabs: HTMLElement;
  private readonly body: HTMLElement;
  private readonly viewers = new Map<PhaseName, LogViewer>();
  private active: PhaseName | null = null;
  private rolloutId = '';

  constructor() {
    this.tabs = h('div', { class: 'tabs', attrs: { role: 'tablist' } });
    this.body = h('div', { class: 'tab-body' });
    this.el = h(
      'section',
      { class: 'card logs', attrs: { id: 'section-logs' } },
      h('h2', null, 'Logs'),
      this.tabs,
      this.body,
    );
  }

  /** Brings tabs and viewers up to date with the trace (cheap when only new log lines arrived). */
  update(trace: RunningTrace): void {
    if (trace.rolloutId !== this.rolloutId) {
      this.viewers.clear();
      this.active = null;
      this.rolloutId = trace.rolloutId;
    }
    for (const phase of trace.phases) {
      let v = this.viewers.get(phase.name);
      if (!v) {
        v = new LogViewer(phase.name);
        this.viewers.set(phase.name, v);
      }
      v.sync(phase.logs);
    }
    if (this.active === null || !this.viewers.has(this.active)) this.active = trace.phases[0]?.name ?? null;
    this.renderTabs();
    const viewer = this.active ? this.viewers.get(this.active) : undefined;
    if (!viewer) {
      replaceChildren(this.body, h('p', { class: 'muted' }, 'No logs yet.'));
    } else if (viewer.el.parentElement !== this.body) {
      replaceChildren(this.body, viewer.el);
      viewer.refresh();
    }
  }

  /** Shows a phase's logs, optionally scrolled to a time (ms since the rollout started). */
  show(phase: PhaseName, offsetMs?: number): void {
    const v = this.viewers.get(phase);
    if (!v) return;
    this.active = phase;
    this.renderTabs();
    if (v.el.parentElement !== this.body) replaceChildren(this.body, v.el);
    v.refresh();
    if (offsetMs !== undefined) v.scrollToTime(offsetMs);
  }

  viewer(phase: PhaseName): LogViewer | undefined {
    return this.viewers.get(phase);
  }

  private renderTabs(): void {
    replaceChildren(
      this.tabs,
      [...this.viewers.entries()].map(([name, v]) =>
        h(
          'button',
          {
            class: `tab${name === this.active ? ' active' : ''}`,
            attrs: {
              type: 'button',
              role: 'tab',
              'aria-selected': String(name === this.active),
              'data-testid': `logs-tab-${name}`,
            },
            on: { click: () => this.show(name) },
          },
          `${name} (${v.lineCount.toLocaleString('en-US')})`,
        ),
      ),
    );
  }
}
