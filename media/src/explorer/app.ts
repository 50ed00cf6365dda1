/**
 * The explorer page: holds what is shown (one trace, a live rollout, or a
 * comparison), turns host messages into state, and renders. Non-log parts are
 * rebuilt on change (they are small); log viewers persist and only take in new
 * lines, so a chatty live rollout repaints cheaply.
 */
import type { RolloutEvent } from '../../../common/events';
import { foldRolloutEvent } from '../../../common/trace/fold';
import { JudgeCall, type RunningTrace } from '../../../common/trace/schema';
import type { HostToExplorerMessage } from '../../../common/explorerMessages';
import { h, replaceChildren, type Child } from './dom';
import { formatReward } from './format';
import type { HostLink } from './host';
import { loadRunningTrace, loadTrace } from './load';
import { renderAgentSteps, renderAnswer, renderPrompt } from './views/conversation';
import { renderCompare } from './views/compare';
import { renderGrade } from './views/subscores';
import { renderHeader } from './views/header';
import { LogsSection } from './views/logs';
import { OpenState } from './views/openState';
import { renderProblems } from './views/problems';
import { renderTimeline, type StepTarget } from './views/timeline';

export type ExplorerMode = 'empty' | 'trace' | 'compare' | 'error';

/** Fired on `document` after every render; tests and the bench wait for it. */
export const RENDERED_EVENT = 'hud-explorer-rendered';

const EVENT_TYPES = new Set<string>([
  'rollout.queued',
  'rollout.started',
  'phase.started',
  'step',
  'log',
  'prompt',
  'agent.step',
  'answer',
  'judge.call',
  'grade',
  'phase.ended',
  'warning',
  'rollout.ended',
]);

const LOG_STREAMS = new Set<string>(['stdout', 'stderr', 'server', 'agent', 'engine']);

/** What the page saves with the webview's setState (see docs/trace-format.md). */
interface SavedState {
  trace: unknown;
  open: string[];
}

/** Saving serialises the whole trace: not on every log line of a chatty rollout. */
const SAVE_DELAY_MS = 500;

export class ExplorerApp {
  private mode: ExplorerMode = 'empty';
  private trace: RunningTrace | null = null;
  private pair: { left: RunningTrace; right: RunningTrace } | null = null;
  private error = '';
  /** Rollout id -> why it is stale (the host judges it against the files now). */
  private readonly stale = new Map<string, string>();
  private open = new OpenState();
  private logs = this.newLogs();
  /** Rebuilt on every render. */
  private readonly page: HTMLElement;
  /** Holds the log section, which is never detached while shown (detaching would lose its scroll position). */
  private readonly logsHost: HTMLElement;
  private frame = 0;
  private fullPending = false;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    root: HTMLElement,
    private readonly host: HostLink,
    private readonly emptyExtras: () => Child = () => null,
  ) {
    this.page = h('div', { class: 'page' });
    this.logsHost = h('div', { class: 'logs-host' });
    replaceChildren(root, h('div', { class: 'explorer' }, this.page, this.logsHost));
    // `toggle` does not bubble: listen while it travels down to the <details>.
    root.addEventListener('toggle', () => this.scheduleSave(), true);
    if (!this.restore(host.savedState())) this.render();
  }

  /** Shows what the page saved before it was hidden; the host's answer to `ready` then brings it up to date. */
  private restore(state: unknown): boolean {
    if (typeof state !== 'object' || state === null) return false;
    const saved = state as Partial<SavedState>;
    const r = loadRunningTrace(saved.trace, 'saved trace');
    if (!r.ok) return false;
    this.open = new OpenState(Array.isArray(saved.open) ? saved.open.filter((k) => typeof k === 'string') : []);
    this.trace = r.trace;
    this.mode = 'trace';
    this.render();
    return true;
  }

  private scheduleSave(): void {
    if (this.saveTimer !== undefined) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      const state: SavedState | undefined =
        this.mode === 'trace' && this.trace ? { trace: this.trace, open: this.open.keys() } : undefined;
      this.host.saveState(state);
    }, SAVE_DELAY_MS);
  }

  /** Entry point for every message from the host (or the dev harness). Malformed messages are ignored. */
  handle(data: unknown): void {
    if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') return;
    const msg = data as HostToExplorerMessage;
    switch (msg.type) {
      case 'trace': {
        const r = loadTrace(msg.trace);
        if (r.ok) this.showTrace(r.trace);
        else this.showError(r.error);
        break;
      }
      case 'running': {
        const r = loadRunningTrace(msg.trace);
        if (r.ok) this.showTrace(r.trace);
        else this.showError(r.error);
        break;
      }
      case 'compare': {
        const l = loadTrace(msg.left, 'left trace');
        const r = loadTrace(msg.right, 'right trace');
        if (!l.ok) this.showError(l.error);
        else if (!r.ok) this.showError(r.error);
        else {
          this.pair = { left: l.trace, right: r.trace };
          this.mode = 'compare';
          this.render();
        }
        break;
      }
      case 'event':
        this.applyEvents([msg.event]);
        break;
      case 'events':
        if (Array.isArray(msg.events)) this.applyEvents(msg.events);
        break;
      case 'wholeLog': {
        const data =
          msg.data instanceof ArrayBuffer ? msg.data : msg.data instanceof Uint8Array ? ownBuffer(msg.data) : null;
        if (data && (msg.phase === 'actor' || msg.phase === 'verifier')) this.logs.showWholeLog(msg.phase, data);
        break;
      }
      case 'wholeLogError':
        if ((msg.phase === 'actor' || msg.phase === 'verifier') && typeof msg.message === 'string')
          this.logs.wholeLogFailed(msg.phase, msg.message);
        break;
      case 'loadError':
        this.showError(typeof msg.message === 'string' ? msg.message : 'the trace could not be loaded');
        break;
      case 'stale':
        if (typeof msg.rolloutId !== 'string') break;
        if (typeof msg.text === 'string') this.stale.set(msg.rolloutId, msg.text);
        else this.stale.delete(msg.rolloutId);
        this.render();
        break;
    }
  }

  private newLogs(): LogsSection {
    return new LogsSection((phase, file) => this.host.post({ type: 'openWholeLog', phase, file }));
  }

  private showTrace(trace: RunningTrace): void {
    if (this.trace?.rolloutId !== trace.rolloutId) {
      this.open = new OpenState();
      this.logs.dispose();
      this.logs = this.newLogs();
    }
    this.trace = trace;
    this.mode = 'trace';
    this.render();
  }

  private showError(message: string): void {
    this.error = message;
    this.mode = 'error';
    this.render();
  }

  private applyEvents(events: unknown[]): void {
    let structural = false;
    let changed = false;
    for (const e of events) {
      if (!isRolloutEvent(e)) continue;
      const before = this.trace;
      let next: RunningTrace | null;
      try {
        // The start of another rollout replaces what is shown; its other events are ignored.
        const starts = e.type === 'rollout.queued' || e.type === 'rollout.started';
        const current = this.mode === 'trace' && !(starts && e.rolloutId !== this.trace?.rolloutId) ? this.trace : null;
        next = foldRolloutEvent(current, e);
      } catch {
        continue; // a malformed event must not take the page down
      }
      if (!next) continue;
      if (next !== before) {
        this.open = new OpenState();
        this.logs.dispose();
        this.logs = this.newLogs();
        this.trace = next;
        this.mode = 'trace';
        structural = true;
      }
      changed = true;
      if (e.type !== 'log') structural = true;
    }
    if (!changed) {
      document.dispatchEvent(new CustomEvent(RENDERED_EVENT, { detail: { mode: this.mode, ignored: true } }));
      return;
    }
    this.fullPending ||= structural;
    if (!this.frame) {
      this.frame = requestAnimationFrame(() => {
        this.frame = 0;
        const full = this.fullPending;
        this.fullPending = false;
        if (full || !this.trace) this.render();
        else {
          this.logs.update(this.trace);
          this.scheduleSave();
          document.dispatchEvent(new CustomEvent(RENDERED_EVENT, { detail: { mode: this.mode, logsOnly: true } }));
        }
      });
    }
  }

  render(): void {
    let content: Child;
    try {
      content = this.content();
    } catch (e) {
      content = h(
        'div',
        { class: 'problem error', attrs: { role: 'alert' } },
        `The explorer could not show this: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    replaceChildren(this.page, content);
    if (this.mode === 'trace' && this.trace) {
      if (this.logs.el.parentElement !== this.logsHost) replaceChildren(this.logsHost, this.logs.el);
      this.logs.update(this.trace);
    } else replaceChildren(this.logsHost);
    document.body.dataset.state = this.mode;
    document.title = this.title();
    this.scheduleSave();
    document.dispatchEvent(new CustomEvent(RENDERED_EVENT, { detail: { mode: this.mode } }));
  }

  private content(): Child {
    switch (this.mode) {
      case 'empty':
        return h(
          'div',
          { class: 'empty' },
          h('h1', null, 'HUD trace explorer'),
          h('p', { class: 'muted' }, 'No trace loaded yet.'),
          this.emptyExtras(),
        );
      case 'error':
        return h(
          'div',
          { class: 'problem error', attrs: { role: 'alert', 'data-testid': 'load-error' } },
          h('strong', null, 'Could not show this trace'),
          h('pre', { class: 'problem-msg' }, this.error),
        );
      case 'compare':
        return this.pair
          ? [
              this.staleBanner(this.pair.left),
              this.staleBanner(this.pair.right),
              renderCompare(this.pair.left, this.pair.right),
            ]
          : null;
      case 'trace': {
        const t = this.trace;
        if (!t) return null;
        const now = new Date().toISOString();
        return [
          this.staleBanner(t),
          renderProblems(t),
          renderHeader(
            t,
            {
              openTask: (ref) => this.host.post({ type: 'openTask', ref }),
              openFile: (path) => this.host.post({ type: 'openFile', path }),
            },
            this.open,
          ),
          renderTimeline(t, (target) => this.jump(target), now),
          h('div', { class: 'two-col' }, renderPrompt(t), renderAnswer(t, this.open)),
          renderAgentSteps(t, this.open),
          renderGrade(t, this.open),
        ];
      }
    }
  }

  private staleBanner(t: RunningTrace): Child {
    const why = this.stale.get(t.rolloutId);
    if (!why) return null;
    return h(
      'div',
      { class: 'problem warning stale', attrs: { role: 'status', 'data-testid': 'stale' } },
      h('span', { class: 'badge' }, 'stale'),
      ` ${t.rolloutId.slice(0, 8)} ran an older version: ${why}. `,
      h(
        'button',
        {
          class: 'link',
          attrs: { type: 'button', 'data-testid': 'show-template-diff' },
          on: { click: () => this.host.post({ type: 'showTemplateDiff', rolloutId: t.rolloutId }) },
        },
        'Show Template Diff',
      ),
    );
  }

  private jump(target: StepTarget): void {
    const section: Record<string, string> = {
      prompt: 'section-prompt',
      agent: 'section-agent',
      answer: 'section-answer',
      grade: 'section-grade',
      verify: 'section-grade',
    };
    const id = section[target.step];
    let el: HTMLElement | null;
    if (target.agentIndex !== undefined) {
      this.open.set(`agent-${target.agentIndex}`, true);
      const details = document.querySelector<HTMLDetailsElement>(`details[data-key="agent-${target.agentIndex}"]`);
      if (details) details.open = true;
      el = details;
    } else if (id) el = document.getElementById(id);
    else {
      this.logs.show(target.phase, target.offsetMs);
      el = this.logs.el;
    }
    if (!el) return;
    el.scrollIntoView({ block: 'start' });
    el.classList.remove('flash');
    void el.offsetWidth; // restart the highlight animation
    el.classList.add('flash');
  }

  private title(): string {
    if (this.mode === 'trace' && this.trace) {
      const t = this.trace;
      return `${t.task.env || t.task.ref}/${t.task.id} — ${t.status === 'running' ? 'running' : formatReward(t.result?.reward)}`;
    }
    if (this.mode === 'compare' && this.pair) return `Compare ${this.pair.left.task.env}/${this.pair.left.task.id}`;
    return 'HUD trace explorer';
  }
}

/** The bytes as an ArrayBuffer of their own (the worker takes it over). */
function ownBuffer(bytes: Uint8Array): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer)
    return bytes.buffer;
  return bytes.slice().buffer;
}

function isRolloutEvent(e: unknown): e is RolloutEvent {
  if (typeof e !== 'object' || e === null) return false;
  const r = e as Record<string, unknown>;
  if (
    typeof r.rolloutId !== 'string' ||
    typeof r.at !== 'string' ||
    typeof r.type !== 'string' ||
    !EVENT_TYPES.has(r.type)
  )
    return false;
  if (r.type === 'log')
    return (
      typeof r.text === 'string' &&
      (r.phase === 'actor' || r.phase === 'verifier') &&
      LOG_STREAMS.has(r.stream as string)
    );
  // Shown field by field under a subscore: only a well-formed call is folded in.
  if (r.type === 'judge.call') return JudgeCall.safeParse(r.call).success;
  return true;
}
