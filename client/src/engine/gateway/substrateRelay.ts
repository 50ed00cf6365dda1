/**
 * Brings the model gateway into a substrate on its own loopback, so a
 * verifier with no network at all still reaches its judge and nothing else.
 * A small stdlib-Python HTTP server runs in the substrate (every served
 * environment has python3) through the provider's exec: each request goes out
 * as one JSON line on its stdout, the engine answers it through the gateway
 * on the host, and the answer comes back as a file that a second exec writes
 * into the relay's private folder. Only the substrate interface is used, so
 * Docker and local substrates work alike.
 */
import type { Substrate } from '../providers/provider';
import { HudStudioError } from '../errors';
import type { GatewayRequest, ModelGateway } from './modelGateway';

const READY = 'HUD_STUDIO_GATEWAY_READY';
const READY_TIMEOUT_MS = 30_000;

const RELAY = `
import base64, http.server, json, os, sys, tempfile, threading, time
box = tempfile.mkdtemp(prefix="hud-gateway-")
lock = threading.Lock()
count = [0]
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def relay(self):
        n = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(n) if n > 0 else b""
        with lock:
            count[0] += 1
            i = count[0]
            frame = {"id": i, "method": self.command, "path": self.path,
                     "headers": {k.lower(): v for k, v in self.headers.items()},
                     "body": base64.b64encode(body).decode()}
            sys.stdout.write(json.dumps(frame) + "\\n")
            sys.stdout.flush()
        path = os.path.join(box, "%d.json" % i)
        deadline = time.time() + 300
        while not os.path.exists(path):
            if time.time() > deadline:
                self.send_error(504, "the gateway did not answer")
                return
            time.sleep(0.005)
        with open(path) as f:
            r = json.load(f)
        os.unlink(path)
        data = base64.b64decode(r["body"])
        self.send_response(r["status"])
        for k, v in r["headers"].items():
            self.send_header(k, v)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_POST = relay
    do_GET = relay
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
sys.stderr.write("${READY} %d %s\\n" % (srv.server_address[1], box))
sys.stderr.flush()
srv.serve_forever()
`;

// Written to a temporary name, then renamed: the relay never reads half an answer.
const ANSWER = `
import os, sys
path = sys.argv[1]
with open(path + ".part", "w") as f:
    f.write(sys.stdin.read())
os.rename(path + ".part", path)
`;

export interface SubstrateGateway {
  /** What the substrate's processes get as HUD_GATEWAY_URL. */
  url: string;
  stop(): void;
}

export async function startSubstrateGateway(
  substrate: Substrate,
  gateway: ModelGateway,
  opts: { signal: AbortSignal; onError: (message: string) => void },
): Promise<SubstrateGateway> {
  const stop = new AbortController();
  const signal = AbortSignal.any([stop.signal, opts.signal]);
  let ready: (v: { port: number; box: string }) => void = () => undefined;
  let failed: (e: Error) => void = () => undefined;
  const started = new Promise<{ port: number; box: string }>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  let box = '';
  let pending = { stdout: '', stderr: '' };
  const onLine = (stream: 'stdout' | 'stderr', line: string): void => {
    if (stream === 'stderr') {
      const m = new RegExp(`^${READY} (\\d+) (\\S+)$`).exec(line.trim());
      if (m) ready({ port: Number(m[1]), box: m[2]! });
      return;
    }
    let frame: { id: number; method: string; path: string; headers: Record<string, string>; body: string };
    try {
      frame = JSON.parse(line) as typeof frame;
    } catch {
      return;
    }
    void answer(frame);
  };
  const answer = async (frame: {
    id: number;
    method: string;
    path: string;
    headers: Record<string, string>;
    body: string;
  }): Promise<void> => {
    const req: GatewayRequest = {
      method: frame.method,
      path: frame.path,
      headers: frame.headers,
      body: Buffer.from(frame.body, 'base64'),
    };
    const res = await gateway.handle(req, signal);
    const text = JSON.stringify({ status: res.status, headers: res.headers, body: res.body.toString('base64') });
    const r = await substrate.exec(['python3', '-I', '-S', '-c', ANSWER, `${box}/${frame.id}.json`], {
      stdin: text,
      signal,
    });
    if (r.exitCode !== 0 && !signal.aborted)
      opts.onError(`the model gateway could not answer a request: ${r.stderr.trim()}`);
  };
  const running = substrate.exec(['python3', '-I', '-S', '-c', RELAY], {
    signal,
    onOutput: (stream, text) => {
      const buf = pending[stream] + text;
      const lines = buf.split('\n');
      pending = { ...pending, [stream]: lines.pop() ?? '' };
      for (const l of lines) onLine(stream, l);
    },
  });
  void running.then((r) => {
    if (!signal.aborted)
      failed(
        new HudStudioError('provider', `the model gateway relay exited: ${r.stderr.trim() || `code ${r.exitCode}`}`),
      );
  }, failed);
  const timer = setTimeout(
    () => failed(new HudStudioError('timeout', 'the model gateway relay did not start within 30 s')),
    READY_TIMEOUT_MS,
  );
  try {
    const where = await started;
    box = where.box;
    return { url: `http://127.0.0.1:${where.port}`, stop: () => stop.abort() };
  } catch (err) {
    stop.abort();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
