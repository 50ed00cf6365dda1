/**
 * What a trace keeps of one phase's log: the head and the tail, with one
 * marked entry where the middle was cut, so that a rollout printing hundreds
 * of megabytes neither fills the trace nor the engine's memory. Once a cut
 * is needed the whole log goes to a side file instead (see sideLogs.ts and
 * docs/reliability.md).
 */
import type { LogStream, TraceLog } from '../../../../common/trace/schema';
import { LogTail } from './logTail';

/** Characters of log kept at each end of a phase's log in the trace. */
export const LOG_HEAD_CHARS = 2 * 1024 * 1024;
export const LOG_TAIL_CHARS = 2 * 1024 * 1024;
/** Each entry costs its text plus its record; counted so that millions of empty lines are bounded too. */
const ENTRY_COST = 64;
export const CUT_MARK = '[hud-studio: cut';

/** Receives every line of a phase once its log is cut (the side file). */
export interface LogSpill {
  write(entry: TraceLog): void;
}

export class BoundedLog {
  private readonly head: TraceLog[] = [];
  private headCost = 0;
  private readonly tail = new LogTail();
  private tailCost = 0;
  private cutLines = 0;
  private cutChars = 0;
  private spill: LogSpill | undefined;

  constructor(
    private readonly openSpill: () => LogSpill | undefined,
    private readonly headChars = LOG_HEAD_CHARS,
    private readonly tailChars = LOG_TAIL_CHARS,
  ) {}

  push(entry: TraceLog): void {
    const cost = entry.text.length + ENTRY_COST;
    if (this.spill) this.spill.write(entry);
    if (this.tail.length === 0 && this.headCost + cost <= this.headChars) {
      // A copy made here: were the fold's own entries kept, V8 would see the place that makes them as one whose
      // objects live long, and allocate every later line's entry in the old generation (docs/reliability.md).
      this.head.push({ t: entry.t, stream: entry.stream, text: entry.text });
      this.headCost += cost;
      return;
    }
    if (!this.spill && this.tailCost + cost > this.tailChars) {
      // The first cut: the side file gets everything so far, then every line as it comes.
      this.spill = this.openSpill();
      if (this.spill) {
        for (const e of this.head) this.spill.write(e);
        for (const e of this.tail.entries()) this.spill.write(e);
        this.spill.write(entry);
      }
    }
    this.tail.push(entry);
    this.tailCost += cost;
    while (this.tailCost > this.tailChars && this.tail.length > 1) {
      const chars = this.tail.shift();
      this.tailCost -= chars + ENTRY_COST;
      this.cutLines += 1;
      this.cutChars += chars;
    }
  }

  get cut(): { lines: number; chars: number } | undefined {
    return this.cutLines ? { lines: this.cutLines, chars: this.cutChars } : undefined;
  }

  /** The entries the trace keeps, with the marked cut between head and tail. */
  entries(): TraceLog[] {
    const tail = [...this.tail.entries()];
    if (!this.cutLines) return [...this.head, ...tail];
    const t = tail[0]?.t ?? this.head[this.head.length - 1]?.t ?? 0;
    const stream: LogStream = 'engine';
    const whole = this.spill
      ? "the whole log is in the phase's side file (logFile)"
      : 'the whole log could not be kept';
    const mark = `${CUT_MARK} ${this.cutLines} lines (${this.cutChars} characters) here; ${whole}]`;
    return [...this.head, { t, stream, text: mark }, ...tail];
  }
}
