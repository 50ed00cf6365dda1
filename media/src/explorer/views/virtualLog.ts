/**
 * The frame both log views share (the trace's log, logViewer.ts, and a
 * side file's whole log, wholeLogView.ts): a search box with previous/next
 * buttons and a count, and a viewport in which only the rows around what is
 * visible exist in the DOM, each a fixed height, so that a log of a million
 * lines costs about what one of fifty does. The views own their lines and
 * their search; this class owns scrolling and painting, and asks the view
 * for the rows of a window.
 */
import type { LogStream } from '../../../../common/trace/schema';
import { parseAnsi, type AnsiSegment } from '../ansi';
import { h, replaceChildren } from '../dom';
import { formatOffset } from '../format';
import { revealInvisible } from '../invisible';

export const LOG_ROW_HEIGHT = 18;
const OVERSCAN = 20;
const FALLBACK_VISIBLE_ROWS = 40;

export const STREAM_LABEL: Record<LogStream, string> = {
  stdout: 'out',
  stderr: 'err',
  server: 'srv',
  agent: 'agt',
  engine: 'eng',
};

export interface VirtualLogOptions {
  phase: string;
  /** What the viewport and the search box are called for screen readers. */
  label: string;
  searchLabel: string;
  placeholder: string;
  /** Extra class on the root (beside `log-viewer`). */
  className?: string;
  /** The count's text before the first `setCount`. */
  initialCount?: string;
  /** Items after the count in the toolbar. */
  toolbar?: HTMLElement[];
  search(query: string): void;
  step(delta: 1 | -1): void;
  /**
   * The rows from `first` to `last` (exclusive), or undefined when they are
   * not at hand yet (the view asks for them and calls `refresh` on arrival;
   * what is on screen stays until then).
   */
  rows(first: number, last: number): HTMLElement[] | undefined;
}

export class VirtualLog {
  readonly el: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rowsEl: HTMLElement;
  private readonly countEl: HTMLElement;
  private lineCount = 0;
  private painted = { first: -1, last: -1 };
  private frame = 0;

  constructor(private readonly opts: VirtualLogOptions) {
    this.input = h('input', {
      class: 'log-search',
      attrs: { type: 'search', placeholder: opts.placeholder, 'aria-label': opts.searchLabel, spellcheck: 'false' },
      on: {
        input: () => opts.search(this.input.value),
        keydown: (e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            opts.step(e.shiftKey ? -1 : 1);
          }
        },
      },
    });
    this.countEl = h('span', { class: 'log-count', attrs: { 'aria-live': 'polite' } }, opts.initialCount ?? '');
    const button = (label: string, title: string, text: string, delta: 1 | -1): HTMLElement =>
      h(
        'button',
        {
          class: 'icon-btn',
          title,
          attrs: { type: 'button', 'aria-label': label },
          on: { click: () => opts.step(delta) },
        },
        text,
      );
    this.rowsEl = h('div', { class: 'log-rows' });
    this.spacer = h('div', { class: 'log-spacer' }, this.rowsEl);
    this.viewport = h(
      'div',
      {
        class: 'log-viewport',
        attrs: { tabindex: '0', role: 'log', 'aria-label': opts.label },
        on: { scroll: () => this.schedule() },
      },
      this.spacer,
    );
    this.el = h(
      'div',
      { class: opts.className ? `log-viewer ${opts.className}` : 'log-viewer', data: { phase: opts.phase } },
      h(
        'div',
        { class: 'log-toolbar' },
        this.input,
        button('Previous match', 'Previous match (Shift+Enter)', '↑', -1),
        button('Next match', 'Next match (Enter)', '↓', 1),
        this.countEl,
        ...(opts.toolbar ?? []),
      ),
      this.viewport,
    );
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.schedule()).observe(this.viewport);
  }

  /** Adds a control after the count (e.g. the logs section's "whole log" button). */
  addToolbarItem(item: HTMLElement): void {
    this.countEl.after(item);
  }

  setCount(text: string): void {
    this.countEl.textContent = text;
  }

  setLineCount(n: number): void {
    this.lineCount = n;
    this.spacer.style.height = `${n * LOG_ROW_HEIGHT}px`;
  }

  /** Whether the view is scrolled to (about) its end: new lines then keep it there. */
  atBottom(): boolean {
    const v = this.viewport;
    return v.scrollHeight - v.scrollTop - v.clientHeight < LOG_ROW_HEIGHT * 2;
  }

  scrollToBottom(): void {
    this.viewport.scrollTop = this.viewport.scrollHeight;
  }

  scrollToLine(line: number, where: 'top' | 'center'): void {
    const height = this.viewport.clientHeight || FALLBACK_VISIBLE_ROWS * LOG_ROW_HEIGHT;
    const top = line * LOG_ROW_HEIGHT - (where === 'center' ? Math.max(0, height / 2 - LOG_ROW_HEIGHT) : 0);
    this.viewport.scrollTop = Math.max(0, top);
    this.refresh();
  }

  /** Paints again, whatever was painted (after new rows, a new search, or being attached to the document). */
  refresh(): void {
    this.painted = { first: -1, last: -1 };
    this.paint();
  }

  dispose(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  private paint(): void {
    const height = this.viewport.clientHeight || FALLBACK_VISIBLE_ROWS * LOG_ROW_HEIGHT;
    const top = this.viewport.scrollTop;
    const first = Math.max(0, Math.floor(top / LOG_ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.lineCount, Math.ceil((top + height) / LOG_ROW_HEIGHT) + OVERSCAN);
    if (first === this.painted.first && last === this.painted.last) return;
    const rows = this.opts.rows(first, last);
    if (!rows) return;
    this.painted = { first, last };
    this.rowsEl.style.transform = `translateY(${first * LOG_ROW_HEIGHT}px)`;
    replaceChildren(this.rowsEl, rows);
  }
}

/** One row: line number, time offset when known, stream, and the text with its colours and search hits. */
export function logRow(
  line: number,
  stream: LogStream,
  text: string,
  opts: { t?: number; query: string; current: boolean },
): HTMLElement {
  const { segments } = parseAnsi(text);
  return h(
    'div',
    { class: `log-row stream-${stream}${opts.current ? ' current-hit' : ''}`, data: { line: String(line + 1) } },
    h('span', { class: 'log-ln' }, String(line + 1)),
    ...(opts.t === undefined ? [] : [h('span', { class: 'log-t' }, formatOffset(opts.t))]),
    h('span', { class: 'log-stream', title: stream }, STREAM_LABEL[stream]),
    h('span', { class: 'log-text' }, opts.query ? highlight(segments, opts.query) : segments.map(segmentNode)),
  );
}

export function segmentNode(seg: AnsiSegment): Node {
  if (seg.fg === undefined && !seg.bold) return document.createTextNode(revealInvisible(seg.text));
  return h('span', { class: segmentClass(seg) }, seg.text);
}

function segmentClass(seg: AnsiSegment): string {
  return [seg.fg === undefined ? '' : `ansi-${seg.fg}`, seg.bold ? 'ansi-bold' : ''].filter(Boolean).join(' ');
}

/** Segments with every match of `query` (lowercase) wrapped in <mark>, preserving colours. */
export function highlight(segments: AnsiSegment[], query: string): Node[] {
  const plain = segments.map((s) => s.text).join('');
  const lower = plain.toLowerCase();
  // Lowercasing can change length for a few characters; then offsets would not line up, so do not mark.
  if (lower.length !== plain.length || !lower.includes(query)) return segments.map(segmentNode);
  const ranges: [number, number][] = [];
  for (let at = lower.indexOf(query); at >= 0; at = lower.indexOf(query, at + query.length))
    ranges.push([at, at + query.length]);
  const out: Node[] = [];
  let offset = 0;
  for (const seg of segments) {
    const end = offset + seg.text.length;
    let pos = offset;
    for (const [a, b] of ranges) {
      if (b <= pos || a >= end) continue;
      if (a > pos) out.push(segmentNode({ ...seg, text: plain.slice(pos, a) }));
      const m = Math.min(b, end);
      out.push(h('mark', { class: 'log-hit' }, segmentNode({ ...seg, text: plain.slice(Math.max(a, pos), m) })));
      pos = m;
    }
    if (pos < end) out.push(segmentNode({ ...seg, text: plain.slice(pos, end) }));
    offset = end;
  }
  return out;
}
