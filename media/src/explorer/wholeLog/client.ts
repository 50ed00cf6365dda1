/**
 * The page's side of the whole-log worker: starts it from the bundled source
 * (a blob URL, the only worker source the page's CSP allows) and routes its
 * answers. One worker per whole log shown; `dispose` ends it.
 */
import workerSource from './worker.ts?worker';
import type { FromLogWorker, ToLogWorker } from './protocol';

let blobUrl: string | undefined;

export class LogWorkerClient {
  private readonly worker: Worker;

  constructor(onMessage: (m: FromLogWorker) => void) {
    blobUrl ??= URL.createObjectURL(new Blob([workerSource], { type: 'text/javascript' }));
    this.worker = new Worker(blobUrl);
    this.worker.onmessage = (e: MessageEvent<FromLogWorker>) => onMessage(e.data);
    this.worker.onerror = (e) => onMessage({ kind: 'failed', message: e.message || 'the log worker failed' });
  }

  send(message: ToLogWorker): void {
    this.worker.postMessage(message, message.kind === 'load' ? [message.data] : []);
  }

  dispose(): void {
    this.worker.terminate();
  }
}
