/**
 * A `fetch` whose every connection is a fresh `tunnel.open` stream, so the
 * MCP SDK's HTTP transports reach a daemon inside the substrate (even one
 * with network none) without a port on the host. The URL keeps the
 * capability's own address: the daemon sees the Host it published.
 */
import { Agent, request, type ClientRequestArgs } from 'node:http';
import { Readable, type Duplex } from 'node:stream';

export type TunnelFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

class TunnelAgent extends Agent {
  constructor(private readonly open: () => Promise<Duplex>) {
    super({ keepAlive: false });
  }

  override createConnection(_opts: ClientRequestArgs, done?: (err: Error | null, stream: Duplex) => void): undefined {
    this.open().then(
      (stream) => {
        done?.(null, stream);
        // The request listens now (openTunnel hands streams over paused).
        stream.resume();
      },
      (err: Error) => done?.(err, undefined as unknown as Duplex),
    );
    return undefined;
  }
}

const NO_BODY = new Set([101, 204, 205, 304]);

export function fetchOverTunnel(open: () => Promise<Duplex>): TunnelFetch {
  const agent = new TunnelAgent(open);
  return async (input, init = {}) => {
    const url = new URL(typeof input === 'string' ? input : input.href);
    if (url.protocol !== 'http:') throw new TypeError(`only http URLs go through a tunnel, not ${url.protocol}`);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    const body = init.body;
    if (body !== undefined && body !== null && typeof body !== 'string')
      throw new TypeError('a tunnelled request body must be a string');
    return new Promise<Response>((resolve, reject) => {
      const req = request(url, { method: init.method ?? 'GET', headers, agent }, (res) => {
        const out = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          if (v !== undefined) for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
        }
        const status = res.statusCode ?? 502;
        const stream = NO_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
        if (!stream) res.resume();
        resolve(new Response(stream, { status, statusText: res.statusMessage ?? '', headers: out }));
      });
      req.on('error', reject);
      const signal = init.signal;
      if (signal) {
        if (signal.aborted) req.destroy(new Error('aborted'));
        signal.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
      }
      req.end(body ?? undefined);
    });
  };
}
