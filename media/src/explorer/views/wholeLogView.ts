/**
 * A phase's whole log from its side file (docs/trace-format.md), at any size:
 * the text lives in a worker that indexed it once (wholeLog/worker.ts); this
 * view holds only the rows around the viewport, asks the worker for others
 * as it scrolls, and shows the first hit of a search as soon as the worker
 * finds it (the count follows).
 */
import type { LogStream } from '../../../../common/trace/schema';
import { h } from '../dom';
import { LogWorkerClient } from '../wholeLog/client';
import type { FromLogWorker } from '../wholeLog/protocol';
import { VirtualLog, logRow } from './virtualLog';

/** Rows fetched around what is shown, so short scrolls need no round trip to the worker. */
const PREFETCH = 200;
/** The side file marks lines of other streams with this prefix (client/src/engine/trace/sideLogs.ts). */
const STREAM_PREFIX = /^\[(stderr|server|agent|engine)\] /;

/** Fired on `document` when the whole log's first rows are on screen; tests and the bench wait for it. */
export const WHOLE_LOG_SHOWN_EVENT = 'hud-whole-log-shown';
/** Fired on `document` when the worker has built the search index (searches before it wait for it). */
export const WHOLE_LOG_INDEXED_EVENT = 'hud-whole-log-indexed';

export class WholeLogView {
  readonly el: HTMLElement;
  private readonly frame: VirtualLog;
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

  constructor(
    readonly phase: string,
    data: ArrayBuffer,
    private readonly file: string,
  ) {
    this.frame = new VirtualLog({
      phase,
      label: `whole ${phase} log`,
      searchLabel: `Search the whole ${phase} log`,
      placeholder: 'Search the whole log',
      className: 'whole-log',
      initialCount: 'Indexing…',
      toolbar: [h('span', { class: 'muted whole-log-file', title: this.file }, this.file)],
      search: (q) => this.search(q),
      step: (d) => this.step(d),
      rows: (first, last) => this.rows(first, last),
    });
    this.frame.input.disabled = true;
    this.el = this.frame.el;
    this.worker = new LogWorkerClient((m) => this.onWorker(m));
    this.worker.send({ kind: 'load', data, rows: PREFETCH });
  }

  dispose(): void {
    this.worker.dispose();
    this.frame.dispose();
  }

  /** Re-renders after the view was attached to the document. */
  refresh(): void {
    this.frame.refresh();
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
    this.frame.scrollToLine(this.hits[this.current] as number, 'center');
  }

  private onWorker(m: FromLogWorker): void {
    switch (m.kind) {
      case 'loaded':
        this.lineCount = m.lineCount;
        this.cache = { from: m.from, lines: m.lines };
        this.frame.setLineCount(m.lineCount);
        this.frame.input.disabled = false;
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
        this.frame.setCount(`The whole log could not be shown: ${m.message}`);
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
          this.frame.scrollToLine(m.line, 'center');
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
    if (this.lineCount < 0) this.frame.setCount('Indexing…');
    else if (!this.query) this.frame.setCount(`${n(this.lineCount)} lines`);
    else if (this.hits)
      this.frame.setCount(this.hits.length ? `${n(this.current + 1)} of ${n(this.hits.length)}` : 'No results');
    else if (this.firstHit >= 0) this.frame.setCount(`${n(this.current + 1)} of …`);
    else this.frame.setCount('Searching…');
  }

  private currentLine(): number {
    if (this.current < 0) return -1;
    return this.hits ? (this.hits[this.current] ?? -1) : this.firstHit;
  }

  /** The rows of a window, or undefined while the worker has not sent them (they are asked for here). */
  private rows(first: number, last: number): HTMLElement[] | undefined {
    if (this.lineCount < 0) return undefined;
    const { from, lines } = this.cache;
    if (first < from || last > from + lines.length) {
      const asked = this.requested;
      if (!asked || first < asked.from || last > asked.to) {
        this.requested = { from: Math.max(0, first - PREFETCH), to: last + PREFETCH };
        this.worker.send({ kind: 'lines', req: ++this.linesReq, ...this.requested });
      }
      return undefined;
    }
    const hit = this.currentLine();
    const out: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const line = lines[i - from] as string;
      const marked = STREAM_PREFIX.exec(line);
      const stream = (marked?.[1] ?? 'stdout') as LogStream;
      const text = marked ? line.slice(marked[0].length) : line;
      out.push(logRow(i, stream, text, { query: this.query, current: i === hit }));
    }
    return out;
  }
}
