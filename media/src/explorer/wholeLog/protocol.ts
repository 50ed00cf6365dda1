/** Messages between the explorer page and its whole-log worker (worker.ts). */

/** Page -> worker. */
export type ToLogWorker =
  /** The side file's bytes (UTF-8), transferred; the worker indexes them and answers `loaded`. */
  | { kind: 'load'; data: ArrayBuffer; rows: number }
  | { kind: 'lines'; req: number; from: number; to: number }
  /** Answered by `first` as soon as the first hit is known (with rows around it), then by `hits`. */
  | { kind: 'search'; req: number; query: string; rows: number };

/** Worker -> page. */
export type FromLogWorker =
  | { kind: 'loaded'; lineCount: number; from: number; lines: string[] }
  /** The search index is built: searches from now on are answered at once. */
  | { kind: 'indexed'; ms: number }
  | { kind: 'failed'; message: string }
  | { kind: 'lines'; req: number; from: number; lines: string[] }
  | { kind: 'first'; req: number; line: number; from: number; lines: string[] }
  | { kind: 'hits'; req: number; hits: Uint32Array };
