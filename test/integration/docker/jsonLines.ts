/** A minimal JSON-RPC line client for provider tests (the engine's own client is tested elsewhere). */
import type { Duplex } from 'node:stream';
import { LineSplitter } from '../../../client/src/engine/output/lineSplitter';

export function rpc(stream: Duplex): {
  call(method: string, params?: unknown): Promise<Record<string, unknown>>;
  close(): void;
} {
  const waiting: ((line: string) => void)[] = [];
  const lines = new LineSplitter((line) => waiting.shift()?.(line));
  stream.on('data', (chunk: Buffer) => lines.push(chunk));
  let id = 0;
  return {
    call(method, params = {}) {
      return new Promise((resolve) => {
        waiting.push((line) => resolve(JSON.parse(line) as Record<string, unknown>));
        stream.write(`${JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params })}\n`);
      });
    },
    close: () => stream.destroy(),
  };
}
