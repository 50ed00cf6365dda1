/**
 * A virtualized, searchable log view. Only the rows inside the viewport
 * (plus a small margin) exist in the DOM, each a fixed height, so a phase
 * with 100,000 lines costs about as much to show and scroll as one with 50.
 * Lines are rendered from ANSI segments as Text nodes inside spans.
 */
import type { LogStream, TraceLog } from '../../../../common/trace/schema';
import { parseAnsi, plainTextLines, type AnsiSegment } from '../ansi';
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

export class LogViewer {
  readonly el: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly countEl: HTMLElement;

  private texts: string[] = [];
  private streams: LogStream[] = [];
  private times: number[] = [];
  /** How many TraceLog entries of the source array have been taken in. */
  private consumed = 0;
  private source: TraceLog[] | null = null;

  /**
   * Search index, built on the first search and extended as lines arrive: the
   * lowercased visible text of every line joined by newlines (one indexOf
   * scan finds all hits), and where each line starts in it.
   */
  private haystack = '';
  private starts: number[] = [];
  private query = '';
  private hits: number[] = [];
  private current = -1;
  private painted = { first: -1, last: -1 };
  private frame = 0;

  constructor(readonly phase: string) {
    this.input = h('input', {
      class: 'log-search',
      attrs: { type: 'search', placeholder: 'Search logs', 'aria-label': `Search ${phase} logs`, spellcheck: 'false' },
      on: {
        input: () => this.search(this.input.value),
        keydown: (e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            this.step(e.shiftKey ? -1 : 1);
          }
        },
      },
    });
    this.countEl = h('span', { class: 'log-count', attrs: { 'aria-live': 'polite' } });
    const prev = h(
      'button',
      {
        class: 'icon-btn',
        title: 'Previous match (Shift+Enter)',
        attrs: { type: 'button', 'aria-label': 'Previous match' },
        on: { click: () => this.step(-1) },
      },
      '↑',
    );
    const next = h(
      'button',
      {
        class: 'icon-btn',
        title: 'Next match (Enter)',
        attrs: { type: 'button', 'aria-label': 'Next match' },
        on: { click: () => this.step(1) },
      },
      '↓',
    );
    this.rows = h('div', { class: 'log-rows' });
    this.spacer = h('div', { class: 'log-spacer' }, this.rows);
    this.viewport = h(
      'div',
      {
        class: 'log-viewport',
        attrs: { tabindex: '0', role: 'log', 'aria-label': `${phase} logs` },
        on: { scroll: () => this.schedule() },
      },
      this.spacer,
    );
    this.el = h(
      'div',
      { class: 'log-viewer', data: { phase } },
      h('div', { class: 'log-toolbar' }, this.input, prev, next, this.countEl),
      this.viewport,
    );
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.schedule()).observe(this.viewport);
  }

  /** Adds a control after the search box's (e.g. the logs section's "whole log" button). */
  addToolbarItem(item: HTMLElement): void {
    this.countEl.after(item);
  }

  get lineCount(): number {
    return this.texts.length;
  }

  /** Takes in new entries of `logs` (the same array grows while a rollout runs). */
  sync(logs: TraceLog[]): void {
    if (logs !== this.source || logs.length < this.consumed) this.reset(logs);
    const follow = this.atBottom();
    const before = this.texts.length;
    for (let i = this.consumed; i < logs.length; i++) {
      const log = logs[i] as TraceLog;
      const text = log.text;
      if (text.indexOf('\n') < 0) this.push(text.endsWith('\r') ? text.slice(0, -1) : text, log.stream, log.t);
      else {
        const parts = text.split(/\r?\n/);
        if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
        for (const p of parts) this.push(p, log.stream, log.t);
      }
    }
    this.consumed = logs.length;
    if (this.texts.length === before && before > 0) return;
    if (this.query) this.extendHits(before);
    this.spacer.style.height = `${this.texts.length * LOG_ROW_HEIGHT}px`;
    this.updateCount();
    if (follow && before > 0 && !this.query) this.viewport.scrollTop = this.viewport.scrollHeight;
    this.painted = { first: -1, last: -1 };
    this.paint();
  }

  /** Runs a case-insensitive search and jumps to the first hit. Returns the number of matching lines. */
  search(query: string): number {
    const q = query.toLowerCase();
    const narrowing = this.query !== '' && q.startsWith(this.query);
    const previous = this.hits;
    this.query = q;
    this.hits = [];
    this.current = -1;
    if (q) {
      this.indexFrom();
      if (narrowing && previous.length < 1000) {
        for (const i of previous) if (this.lineText(i).includes(q)) this.hits.push(i);
      } else this.findHits(0);
    }
    if (this.input.value.toLowerCase() !== q) this.input.value = query;
    if (this.hits.length > 0) this.goTo(0);
    else {
      this.updateCount();
      this.painted = { first: -1, last: -1 };
      this.paint();
    }
    return this.hits.length;
  }

  /** Moves to the next (+1) or previous (-1) hit, wrapping around. */
  step(delta: 1 | -1): void {
    if (this.hits.length === 0) return;
    this.goTo((this.current + delta + this.hits.length) % this.hits.length);
  }

  /** Scrolls so the first line logged at or after `ms` is at the top. */
  scrollToTime(ms: number): void {
    let lo = 0;
    let hi = this.times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.times[mid] as number) < ms) lo = mid + 1;
      else hi = mid;
    }
    this.scrollToLine(Math.min(lo, Math.max(0, this.texts.length - 1)), 'top');
  }

  /** Re-renders after the viewer was attached to the document (its size was unknown while detached). */
  refresh(): void {
    this.painted = { first: -1, last: -1 };
    this.paint();
  }

  private reset(logs: TraceLog[]): void {
    this.source = logs;
    this.consumed = 0;
    this.texts = [];
    this.streams = [];
    this.times = [];
    this.haystack = '';
    this.starts = [];
    this.hits = [];
    this.current = -1;
  }

  private push(text: string, stream: LogStream, t: number): void {
    this.texts.push(text);
    this.streams.push(stream);
    this.times.push(t);
  }

  /** Extends the search index with lines not yet in it. */
  private indexFrom(): void {
    const from = this.starts.length;
    if (from === this.texts.length) return;
    const lines = from === 0 ? this.texts : this.texts.slice(from);
    const joined = plainTextLines(lines);
    let lower = joined.toLowerCase();
    // Lowercasing only ever lengthens a few characters (e.g. U+0130); then lower line by line so offsets stay exact.
    if (lower.length !== joined.length)
      lower = joined
        .split('\n')
        .map((p) => p.toLowerCase())
        .join('\n');
    const base = from > 0 ? this.haystack.length + 1 : 0;
    let pos = 0;
    for (let i = 0; i < lines.length; i++) {
      this.starts.push(base + pos);
      const nl = lower.indexOf('\n', pos);
      pos = nl < 0 ? lower.length : nl + 1;
    }
    this.haystack = from > 0 ? `${this.haystack}\n${lower}` : lower;
  }

  private lineText(i: number): string {
    const end = i + 1 < this.starts.length ? (this.starts[i + 1] as number) - 1 : this.haystack.length;
    return this.haystack.slice(this.starts[i], end);
  }

  /** Appends to `hits` every line from `fromLine` on that contains the query (one entry per line). */
  private findHits(fromLine: number): void {
    const q = this.query;
    const hay = this.haystack;
    const starts = this.starts;
    let line = fromLine;
    let at = hay.indexOf(q, starts[fromLine] ?? hay.length);
    while (at >= 0) {
      // Advance to the line holding `at` (hits come in order, so this walk is linear overall).
      let lo = line;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if ((starts[mid] as number) <= at) lo = mid;
        else hi = mid - 1;
      }
      line = lo;
      this.hits.push(line);
      const next = line + 1 < starts.length ? (starts[line + 1] as number) : hay.length;
      at = hay.indexOf(q, next);
    }
  }

  private extendHits(from: number): void {
    this.indexFrom();
    this.findHits(from);
  }

  private goTo(hitIndex: number): void {
    this.current = hitIndex;
    this.updateCount();
    this.scrollToLine(this.hits[hitIndex] as number, 'center');
  }

  private scrollToLine(line: number, where: 'top' | 'center'): void {
    const height = this.viewport.clientHeight || FALLBACK_VISIBLE_ROWS * LOG_ROW_HEIGHT;
    const top = line * LOG_ROW_HEIGHT - (where === 'center' ? Math.max(0, height / 2 - LOG_ROW_HEIGHT) : 0);
    this.viewport.scrollTop = Math.max(0, top);
    this.painted = { first: -1, last: -1 };
    this.paint();
  }

  private updateCount(): void {
    if (!this.query) this.countEl.textContent = `${this.texts.length.toLocaleString('en-US')} lines`;
    else if (this.hits.length === 0) this.countEl.textContent = 'No results';
    else
      this.countEl.textContent = `${(this.current + 1).toLocaleString('en-US')} of ${this.hits.length.toLocaleString('en-US')}`;
  }

  private atBottom(): boolean {
    const v = this.viewport;
    return v.scrollHeight - v.scrollTop - v.clientHeight < LOG_ROW_HEIGHT * 2;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  private paint(): void {
    const n = this.texts.length;
    const height = this.viewport.clientHeight || FALLBACK_VISIBLE_ROWS * LOG_ROW_HEIGHT;
    const first = Math.max(0, Math.floor(this.viewport.scrollTop / LOG_ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(n, Math.ceil((this.viewport.scrollTop + height) / LOG_ROW_HEIGHT) + OVERSCAN);
    if (first === this.painted.first && last === this.painted.last) return;
    this.painted = { first, last };
    const currentLine = this.current >= 0 ? this.hits[this.current] : -1;
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) rows.push(this.row(i, i === currentLine));
    this.rows.style.transform = `translateY(${first * LOG_ROW_HEIGHT}px)`;
    replaceChildren(this.rows, rows);
  }

  private row(i: number, isCurrent: boolean): HTMLElement {
    const stream = this.streams[i] as LogStream;
    const { segments } = parseAnsi(this.texts[i] as string);
    const text = h(
      'span',
      { class: 'log-text' },
      this.query ? highlight(segments, this.query) : segments.map(segmentNode),
    );
    return h(
      'div',
      { class: `log-row stream-${stream}${isCurrent ? ' current-hit' : ''}`, data: { line: String(i + 1) } },
      h('span', { class: 'log-ln' }, String(i + 1)),
      h('span', { class: 'log-t' }, formatOffset(this.times[i] as number)),
      h('span', { class: 'log-stream', title: stream }, STREAM_LABEL[stream]),
      text,
    );
  }
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
