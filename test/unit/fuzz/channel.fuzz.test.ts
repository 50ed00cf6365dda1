/**
 * Fuzz of the control channel from both ends, over real TCP on 127.0.0.1:
 * the engine's client reading whatever a broken or hostile server sends, and
 * the bundled Python server (a real python3 process) reading whatever a
 * client sends. The client settles every request (a result or a typed
 * error); the server answers every frame or closes only that connection,
 * and keeps serving.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { ControlChannel } from '../../../client/src/engine/channel/client';
import { connectTcp } from '../../../client/src/engine/channel/tcp';
import { HudStudioError } from '../../../client/src/engine/errors';
import { anyJson, mutated, nastyBytes, nestedJson, params } from './arbitraries';

const REPO = join(__dirname, '..', '..', '..');

const serverReply = fc.oneof(
  anyJson.map((v) => Buffer.from(`${JSON.stringify(v)}\n`)),
  fc
    .record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.constant(1), anyJson), result: anyJson })
    .map((v) => Buffer.from(`${JSON.stringify(v)}\n`)),
  fc
    .record({ jsonrpc: fc.constant('2.0'), id: fc.constant(1), error: anyJson })
    .map((v) => Buffer.from(`${JSON.stringify(v)}\n`)),
  mutated(
    '{"jsonrpc":"2.0","id":1,"result":{"session_id":"s","env":{"name":"e","version":"1"},"bindings":[],"resumed":false,"task":null}}\n',
  ),
  nastyBytes,
  fc.constant(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${nestedJson(100_000)}}\n`)),
);

test('the engine client settles every request, whatever the server sends', async () => {
  let script: Buffer[] = [];
  const server = createServer((socket: Socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      for (const part of script) socket.write(part);
      socket.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    await fc.assert(
      fc.asyncProperty(fc.array(serverReply, { minLength: 1, maxLength: 4 }), async (parts) => {
        script = parts;
        const channel = new ControlChannel(await connectTcp('127.0.0.1', port), { requestTimeoutMs: 5_000 });
        try {
          await channel.hello();
        } catch (err) {
          assert.ok(err instanceof HudStudioError, `a typed error, not ${String(err)}`);
        } finally {
          channel.close();
        }
      }),
      params(100, 8),
    );
  } finally {
    server.close();
  }
});

let python: ChildProcess | undefined;
let pythonPort = 0;
let pythonStderr = '';

before(async () => {
  python = spawn(
    'python3',
    [
      '-m',
      'hud.environment.server',
      join(REPO, 'test', 'fixtures', 'python', 'protocol', 'env.py'),
      '--port-stdout-only',
    ],
    {
      env: { ...process.env, PYTHONPATH: join(REPO, 'runtime', 'python') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  python.stderr!.on('data', (c: Buffer) => (pythonStderr = (pythonStderr + c.toString()).slice(-4000)));
  pythonPort = await new Promise<number>((resolve, reject) => {
    let out = '';
    python!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /HUD_SERVE_PORT=(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    python!.on('exit', (code) => reject(new Error(`server exited ${code}: ${pythonStderr}`)));
  });
});
after(() => python?.kill('SIGKILL'));

/** Sends `bytes` then a newline on a fresh connection; resolves with the first reply line, or null if closed. */
function exchange(bytes: Buffer): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const socket = new Socket();
    let got = '';
    const timer = setTimeout(
      () => (socket.destroy(), reject(new Error(`no reply and no close within 20 s; server: ${pythonStderr}`))),
      20_000,
    );
    socket.on('error', () => undefined);
    socket.on('data', (c: Buffer) => {
      got += c.toString();
      const nl = got.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        socket.destroy();
        resolve(got.slice(0, nl));
      }
    });
    socket.on(
      'close',
      () => (clearTimeout(timer), resolve(got.includes('\n') ? got.slice(0, got.indexOf('\n')) : null)),
    );
    socket.connect(pythonPort, '127.0.0.1', () => {
      socket.write(Buffer.concat([bytes.filter((b) => b !== 0x0a), Buffer.from('\n')]));
    });
  });
}

const clientFrame = fc.oneof(
  mutated('{"jsonrpc":"2.0","id":1,"method":"tasks.start","params":{"id":"echo","args":{"text":"hi"}}}'),
  mutated('{"jsonrpc":"2.0","id":"a","method":"hello","params":{}}'),
  fc
    .record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), anyJson),
        id: anyJson,
        method: fc.oneof(
          fc.constantFrom('hello', 'tasks.list', 'tasks.start', 'tasks.grade', 'tasks.cancel', 'bye'),
          anyJson,
        ),
        params: anyJson,
      },
      { requiredKeys: [] },
    )
    .map((v) => Buffer.from(JSON.stringify(v))),
  nastyBytes,
  fc.constantFrom(
    Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"hello","params":${nestedJson(100_000)}}`),
    Buffer.from('{"jsonrpc":"2.0","id":NaN,"method":"hello"}'),
    Buffer.from('{"jsonrpc":"2.0","id":[1],"method":"hello"}'),
    Buffer.from('{"id":1,"method":"hello"}'),
  ),
);

test('the Python server answers every frame with JSON-RPC (or closes only that connection) and keeps serving', async () => {
  await fc.assert(
    fc.asyncProperty(clientFrame, async (bytes) => {
      const line = await exchange(bytes);
      if (line !== null && line !== '') {
        const frame = JSON.parse(line) as {
          jsonrpc?: string;
          result?: unknown;
          error?: { code: number; message: string };
        };
        assert.equal(frame.jsonrpc, '2.0');
        assert.ok(
          'result' in frame || (typeof frame.error?.code === 'number' && typeof frame.error.message === 'string'),
          line,
        );
      }
      assert.equal(python!.exitCode, null, `the server died: ${pythonStderr}`);
    }),
    params(150, 10),
  );
  const hello = await exchange(Buffer.from('{"jsonrpc":"2.0","id":9,"method":"hello"}'));
  assert.match(hello ?? '', /"protocol"/, 'still serving after the fuzz');
});
