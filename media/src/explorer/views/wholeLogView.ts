/**
 * A phase's whole log from its side file (docs/trace-format.md), at any size:
 * the text lives in a worker that indexed it once (wholeLog/worker.ts); this
 * view holds only the rows around the viewport, asks the worker for others
 * as it scrolls, and shows the first hit of a search as soon as the worker
 * finds it (the count follows).
 */
import type { LogStream } from '../../../../common/trace/schema';
import { parseAnsi } from '../ansi';
import { h, replaceChildren } from '../dom';
import { LogWorkerClient } from '../wholeLog/client';
import type { FromLogWorker } from '../wholeLog/protocol';
import { LOG_ROW_HEIGHT, STREAM_LABEL, highlight, segmentNode } from './logViewer';

const OVERSCAN = 20;
/** Rows fetched around what is shown, so short scrolls need no round trip to the worker. */
const PREFETCH = 200;
const FALLBACK_VISIBLE_ROWS = 40;
/** The side file marks lines of other streams with this prefix (client/src/engine/trace/sideLogs.ts). */
const STREAM_PREFIX = /^\[(stderr|server|agent|engine)\] /;

/** Fired on `document` when the whole log's first rows are on screen; tests and the bench wait for it. */
export const WHOLE_LOG_SHOWN_EVENT = 'hud-whole-log-shown';
/** Fired on `document` when the worker has built the search index (searches before it wait for it). */
export const WHOLE_LOG_INDEXED_EVENT = 'hud-whole-log-indexed';

export class WholeLogView {
  readonly el: HTMLElement;
  private readonly viewport: HTMLElement;
  private readonly spacer: HTMLElement;
  private readonly rows: HTMLElement;
  private readonly input: HTMLInputElement;
  private readonly countEl: HTMLElement;
  private readonly worker: LogWorkerClient;

  private lineCount = -1;
  private cache: { from: number; lines: string[] } = { from: 0, lines: [] };
  private query = '';
  private searchReq = 0;
  private linesReq = 0;
  /** Rows asked of the worker and not yet received. */
  private requested: { from: number; to: number } | null = null;
  /** Line of the first hit until every hit is known. */
  private firstHit = -1;
  private hits: Uint32Array | null = null;
  private current = -1;
  private painted = { first: -1, last: -1 };
  private frame = 0;

  constructor(
    readonly phase: string,
    data: ArrayBuffer,
    private readonly file: string,
  ) {
    this.input = h('input', {
      class: 'log-search',
      attrs: {
        type: 'search',
        placeholder: 'Search the whole log',
        'aria-label': `Search the whole ${phase} log`,
        spellcheck: 'false',
        disabled: '',
      },
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
    this.countEl = h('span', { class: 'log-count', attrs: { 'aria-live': 'polite' } }, 'Indexing…');
    const button = (label: string, title: string, text: string, delta: 1 | -1): HTMLElement =>
      h(
        'button',
        {
          class: 'icon-btn',
          title,
          attrs: { type: 'button', 'aria-label': label },
          on: { click: () => this.step(delta) },
        },
        text,
      );
    this.rows = h('div', { class: 'log-rows' });
    this.spacer = h('div', { class: 'log-spacer' }, this.rows);
    this.viewport = h(
      'div',
      {
        class: 'log-viewport',
        attrs: { tabindex: '0', role: 'log', 'aria-label': `whole ${phase} log` },
        on: { scroll: () => this.schedule() },
      },
      this.spacer,
    );
    this.el = h(
      'div',
      { class: 'log-viewer whole-log', data: { phase } },
      h(
        'div',
        { class: 'log-toolbar' },
        this.input,
        button('Previous match', 'Previous match (Shift+Enter)', '↑', -1),
        button('Next match', 'Next match (Enter)', '↓', 1),
        this.countEl,
        h('span', { class: 'muted whole-log-file', title: this.file }, this.file),
      ),
      this.viewport,
    );
    if (typeof ResizeObserver === 'function') new ResizeObserver(() => this.schedule()).observe(this.viewport);
    this.worker = new LogWorkerClient((m) => this.onWorker(m));
    this.worker.send({ kind: 'load', data, rows: PREFETCH });
  }

  dispose(): void {
    this.worker.dispose();
    if (this.frame) cancelAnimationFrame(this.frame);
  }

  /** Re-renders after the view was attached to the document. */
  refresh(): void {
    this.painted = { first: -1, last: -1 };
    this.paint();
  }

  search(query: string): void {
    this.query = query.toLowerCase();
    this.hits = null;
    this.firstHit = -1;
    this.current = -1;
    this.searchReq++;
    if (this.query && this.lineCount > 0)
      this.worker.send({ kind: 'search', req: this.searchReq, query: this.query, rows: PREFETCH });
    this.updateCount();
    this.refresh();
  }

  step(delta: 1 | -1): void {
    if (!this.hits || this.hits.length === 0) return;
    this.current = (this.current + delta + this.hits.length) % this.hits.length;
    this.updateCount();
    this.scrollToLine(this.hits[this.current] as number);
  }

  private onWorker(m: FromLogWorker): void {
    switch (m.kind) {
      case 'loaded':
        this.lineCount = m.lineCount;
        this.cache = { from: m.from, lines: m.lines };
        this.spacer.style.height = `${m.lineCount * LOG_ROW_HEIGHT}px`;
        this.input.disabled = false;
        this.updateCount();
        this.refresh();
        document.dispatchEvent(
          new CustomEvent(WHOLE_LOG_SHOWN_EVENT, { detail: { phase: this.phase, lines: m.lineCount } }),
        );
        return;
      case 'indexed':
        this.el.dataset.indexed = 'true';
        document.dispatchEvent(new CustomEvent(WHOLE_LOG_INDEXED_EVENT, { detail: { phase: this.phase, ms: m.ms } }));
        return;
      case 'failed':
        this.countEl.textContent = `The whole log could not be shown: ${m.message}`;
        return;
      case 'lines':
        if (m.req !== this.linesReq) return;
        this.requested = null;
        this.cache = { from: m.from, lines: m.lines };
        this.refresh();
        return;
      case 'first':
        if (m.req !== this.searchReq) return;
        this.firstHit = m.line;
        if (m.line >= 0) {
          this.linesReq++; // rows asked before the search would move the view back
          this.requested = null;
          this.cache = { from: m.from, lines: m.lines };
          this.current = 0;
          this.updateCount();
          this.scrollToLine(m.line);
        } else this.updateCount();
        return;
      case 'hits':
        if (m.req !== this.searchReq) return;
        this.hits = m.hits;
        this.updateCount();
        return;
    }
  }

  private updateCount(): void {
    const n = (x: number): string => x.toLocaleString('en-US');
    if (this.lineCount < 0) this.countEl.textContent = 'Indexing…';
    else if (!this.query) this.countEl.textContent = `${n(this.lineCount)} lines`;
    else if (this.hits)
      this.countEl.textContent = this.hits.length ? `${n(this.current + 1)} of ${n(this.hits.length)}` : 'No results';
    else if (this.firstHit >= 0) this.countEl.textContent = `${n(this.current + 1)} of …`;
    else this.countEl.textContent = 'Searching…';
  }

  private currentLine(): number {
    if (this.current < 0) return -1;
    return this.hits ? (this.hits[this.current] ?? -1) : this.firstHit;
  }

  private scrollToLine(line: number): void {
    const height = this.viewport.clientHeight || FALLBACK_VISIBLE_ROWS * LOG_ROW_HEIGHT;
    this.viewport.scrollTop = Math.max(0, line * LOG_ROW_HEIGHT - Math.max(0, height / 2 - LOG_ROW_HEIGHT));
    this.refresh();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  private paint(): void {
    if (this.lineCount < 0) return;
    const height = this.viewport.clientHeight || FALLBACK_VISIBLE_ROWS * LOG_ROW_HEIGHT;
    const top = this.viewport.scrollTop;
    const first = Math.max(0, Math.floor(top / LOG_ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(this.lineCount, Math.ceil((top + height) / LOG_ROW_HEIGHT) + OVERSCAN);
    const { from, lines } = this.cache;
    if (first < from || last > from + lines.length) {
      // Not fetched yet: ask for a wider window (unless one on its way covers it); what is on screen stays until then.
      const asked = this.requested;
      if (!asked || first < asked.from || last > asked.to) {
        this.requested = { from: Math.max(0, first - PREFETCH), to: last + PREFETCH };
        this.worker.send({ kind: 'lines', req: ++this.linesReq, ...this.requested });
      }
      return;
    }
    if (first === this.painted.first && last === this.painted.last) return;
    this.painted = { first, last };
    const hit = this.currentLine();
    const out: HTMLElement[] = [];
    for (let i = first; i < last; i++) out.push(this.row(i, lines[i - from] as string, i === hit));
    this.rows.style.transform = `translateY(${first * LOG_ROW_HEIGHT}px)`;
    replaceChildren(this.rows, out);
  }

  private row(i: number, line: string, isCurrent: boolean): HTMLElement {
    const marked = STREAM_PREFIX.exec(line);
    const stream = (marked?.[1] ?? 'stdout') as LogStream;
    const { segments } = parseAnsi(marked ? line.slice(marked[0].length) : line);
    return h(
      'div',
      { class: `log-row stream-${stream}${isCurrent ? ' current-hit' : ''}`, data: { line: String(i + 1) } },
      h('span', { class: 'log-ln' }, String(i + 1)),
      h('span', { class: 'log-stream', title: stream }, STREAM_LABEL[stream]),
      h('span', { class: 'log-text' }, this.query ? highlight(segments, this.query) : segments.map(segmentNode)),
    );
  }
}
