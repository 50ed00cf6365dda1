/**
 * The whole-log worker: decodes and indexes a side file once, off the page's
 * thread, then answers for rows and searches. Bundled into the explorer's
 * script as text (scripts/esbuildInlineWorker.mjs) and started from a blob,
 * which the page's CSP allows for workers only (client/src/explorer/html.ts).
 */
import { LogIndex } from './logIndex';
import type { FromLogWorker, ToLogWorker } from './protocol';

interface WorkerScope {
  onmessage: ((e: MessageEvent<ToLogWorker>) => void) | null;
  postMessage(message: FromLogWorker, transfer?: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;
let index: LogIndex | undefined;

function around(line: number, rows: number): { from: number; lines: string[] } {
  const from = Math.max(0, line - rows);
  return { from, lines: index ? index.lines(from, line + rows) : [] };
}

scope.onmessage = (e) => {
  const m = e.data;
  try {
    switch (m.kind) {
      case 'load': {
        index = new LogIndex(new TextDecoder('utf-8').decode(m.data));
        scope.postMessage({ kind: 'loaded', lineCount: index.lineCount, from: 0, lines: index.lines(0, m.rows) });
        // The first rows are out; the search text is built before the next message is taken.
        const t0 = performance.now();
        index.prepareSearch();
        scope.postMessage({ kind: 'indexed', ms: performance.now() - t0 });
        return;
      }
      case 'lines':
        scope.postMessage({ kind: 'lines', req: m.req, from: m.from, lines: index?.lines(m.from, m.to) ?? [] });
        return;
      case 'search': {
        if (!index) return;
        const line = index.firstHit(m.query);
        scope.postMessage({ kind: 'first', req: m.req, line, ...around(Math.max(0, line), m.rows) });
        const hits = line < 0 ? new Uint32Array(0) : index.allHits(m.query);
        scope.postMessage({ kind: 'hits', req: m.req, hits }, [hits.buffer]);
        return;
      }
    }
  } catch (err) {
    scope.postMessage({ kind: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
};
