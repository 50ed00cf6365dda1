/**
 * The trace's log of one phase, searchable, in the shared virtual frame
 * (virtualLog.ts). The lines grow while a rollout runs; the search index is
 * built on the first search and extended as lines arrive.
 */
import type { LogStream, TraceLog } from '../../../../common/trace/schema';
import { plainTextLines } from '../ansi';
import { lineHolding } from '../lineHolding';
import { VirtualLog, logRow } from './virtualLog';

export class LogViewer {
  readonly el: HTMLElement;
  private readonly frame: VirtualLog;

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

  constructor(readonly phase: string) {
    this.frame = new VirtualLog({
      phase,
      label: `${phase} logs`,
      searchLabel: `Search ${phase} logs`,
      placeholder: 'Search logs',
      search: (q) => this.search(q),
      step: (d) => this.step(d),
      rows: (first, last) => {
        const currentLine = this.current >= 0 ? this.hits[this.current] : -1;
        const rows: HTMLElement[] = [];
        for (let i = first; i < last; i++)
          rows.push(
            logRow(i, this.streams[i] as LogStream, this.texts[i] as string, {
              t: this.times[i] as number,
              query: this.query,
              current: i === currentLine,
            }),
          );
        return rows;
      },
    });
    this.el = this.frame.el;
  }

  /** Adds a control after the search box's (e.g. the logs section's "whole log" button). */
  addToolbarItem(item: HTMLElement): void {
    this.frame.addToolbarItem(item);
  }

  get lineCount(): number {
    return this.texts.length;
  }

  /** Takes in new entries of `logs` (the same array grows while a rollout runs). */
  sync(logs: TraceLog[]): void {
    if (logs !== this.source || logs.length < this.consumed) this.reset(logs);
    const follow = this.frame.atBottom();
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
    this.frame.setLineCount(this.texts.length);
    this.updateCount();
    if (follow && before > 0 && !this.query) this.frame.scrollToBottom();
    this.frame.refresh();
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
    if (this.frame.input.value.toLowerCase() !== q) this.frame.input.value = query;
    if (this.hits.length > 0) this.goTo(0);
    else {
      this.updateCount();
      this.frame.refresh();
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
    this.frame.scrollToLine(Math.min(lo, Math.max(0, this.texts.length - 1)), 'top');
  }

  /** Re-renders after the viewer was attached to the document (its size was unknown while detached). */
  refresh(): void {
    this.frame.refresh();
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
      line = lineHolding(starts, starts.length, at, line);
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
    this.frame.scrollToLine(this.hits[hitIndex] as number, 'center');
  }

  private updateCount(): void {
    const n = (x: number): string => x.toLocaleString('en-US');
    if (!this.query) this.frame.setCount(`${n(this.texts.length)} lines`);
    else if (this.hits.length === 0) this.frame.setCount('No results');
    else this.frame.setCount(`${n(this.current + 1)} of ${n(this.hits.length)}`);
  }
}
