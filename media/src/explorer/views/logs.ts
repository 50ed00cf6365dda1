/** Logs per phase, one tab each; the viewers live across re-renders so search and scroll survive live updates. */
import type { PhaseName, RunningTrace } from '../../../../common/trace/schema';
import { h, replaceChildren } from '../dom';
import { LogViewer } from './logViewer';
import { WholeLogView } from './wholeLogView';

/** Asks the host for a phase's side file (`file`, relative to the trace's folder). */
export type OpenWholeLog = (phase: PhaseName, file: string) => void;

export class LogsSection {
  readonly el: HTMLElement;
  private readonly tabs: HTMLElement;
  private readonly body: HTMLElement;
  private readonly viewers = new Map<PhaseName, LogViewer>();
  /** Whole logs from side files, shown instead of the phase's head and tail once loaded. */
  private readonly whole = new Map<PhaseName, WholeLogView>();
  private readonly files = new Map<PhaseName, string>();
  private active: PhaseName | null = null;
  private rolloutId = '';

  constructor(private readonly openWholeLog: OpenWholeLog = () => undefined) {
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
      this.dispose();
      this.viewers.clear();
      this.files.clear();
      this.active = null;
      this.rolloutId = trace.rolloutId;
    }
    for (const phase of trace.phases) {
      let v = this.viewers.get(phase.name);
      if (!v) {
        v = new LogViewer(phase.name);
        this.viewers.set(phase.name, v);
      }
      if (phase.logFile && !this.files.has(phase.name)) {
        const file = phase.logFile;
        const name = phase.name;
        this.files.set(name, file);
        v.addToolbarItem(
          h(
            'button',
            {
              class: 'whole-log-btn',
              title: `The trace keeps this log's head and tail; open the whole log (${file})`,
              attrs: { type: 'button', 'data-testid': `whole-log-${name}` },
              on: { click: () => this.openWholeLog(name, file) },
            },
            'Whole log',
          ),
        );
      }
      v.sync(phase.logs);
    }
    if (this.active === null || !this.viewers.has(this.active)) this.active = trace.phases[0]?.name ?? null;
    this.renderTabs();
    const viewer = this.active ? this.shown(this.active) : undefined;
    if (!viewer) {
      replaceChildren(this.body, h('p', { class: 'muted' }, 'No logs yet.'));
    } else if (viewer.el.parentElement !== this.body) {
      replaceChildren(this.body, viewer.el);
      viewer.refresh();
    }
  }

  /** Shows a phase's whole log (the side file's bytes, which move to its worker). */
  showWholeLog(phase: PhaseName, data: ArrayBuffer): void {
    const file = this.files.get(phase);
    if (file === undefined) return; // not asked for by this trace
    this.whole.get(phase)?.dispose();
    const view = new WholeLogView(phase, data, file);
    this.whole.set(phase, view);
    this.show(phase);
  }

  /** The host could not read the side file: say so in the phase's toolbar. */
  wholeLogFailed(phase: PhaseName, message: string): void {
    const v = this.viewers.get(phase);
    if (!v) return;
    v.addToolbarItem(h('span', { class: 'problem error whole-log-error', attrs: { role: 'alert' } }, message));
  }

  /** Ends the whole-log workers. */
  dispose(): void {
    for (const w of this.whole.values()) w.dispose();
    this.whole.clear();
  }

  private shown(phase: PhaseName): LogViewer | WholeLogView | undefined {
    return this.whole.get(phase) ?? this.viewers.get(phase);
  }

  /** Shows a phase's logs, optionally scrolled to a time (ms since the rollout started). */
  show(phase: PhaseName, offsetMs?: number): void {
    const v = this.shown(phase);
    if (!v) return;
    this.active = phase;
    this.renderTabs();
    if (v.el.parentElement !== this.body) replaceChildren(this.body, v.el);
    v.refresh();
    if (offsetMs !== undefined && v instanceof LogViewer) v.scrollToTime(offsetMs);
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
          this.whole.has(name) ? `${name} (whole log)` : `${name} (${v.lineCount.toLocaleString('en-US')})`,
        ),
      ),
    );
  }
}
