import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { ControlChannel } from '../../../client/src/engine/channel/client';
import { connectTcp } from '../../../client/src/engine/channel/tcp';
import { CancelledError, ProtocolError, TimeoutError } from '../../../client/src/engine/errors';

type Frame = { jsonrpc: string; id: number; method: string; params: Record<string, unknown> };

/** A TCP server on 127.0.0.1 whose replies the test scripts frame by frame. */
async function scripted(onFrame: (frame: Frame, socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => {
    let parts: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      let start = 0;
      let nl: number;
      while ((nl = chunk.indexOf(0x0a, start)) >= 0) {
        parts.push(chunk.subarray(start, nl));
        const line = Buffer.concat(parts).toString('utf8');
        parts = [];
        start = nl + 1;
        onFrame(JSON.parse(line) as Frame, socket);
      }
      if (start < chunk.length) parts.push(chunk.subarray(start));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  const addr = server.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return { server, port: addr.port };
}
const servers: Server[] = [];
after(() => servers.forEach((s) => s.close()));

const reply = (socket: Socket, id: number, result: unknown): void =>
  void socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, result })}\n`);
const fail = (socket: Socket, id: number, code: number, message: string): void =>
  void socket.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);

async function channelTo(
  port: number,
  opts: ConstructorParameters<typeof ControlChannel>[1] = {},
): Promise<ControlChannel> {
  return new ControlChannel(await connectTcp('127.0.0.1', port), opts);
}

describe('control channel client', () => {
  test('every session method sends the right frame and returns the typed result', async () => {
    const seen: Frame[] = [];
    const { port } = await scripted((f, s) => {
      seen.push(f);
      if (f.method === 'hello')
        reply(s, f.id, { session_id: 'abc', env: { name: 'workspace', version: '1.0' }, bindings: [] });
      if (f.method === 'tasks.list')
        reply(s, f.id, { tasks: [{ id: 'solve', description: '', args: { type: 'object' } }] });
      if (f.method === 'tasks.start') reply(s, f.id, { prompt: 'go', extra: 1 });
      if (f.method === 'tasks.grade')
        reply(s, f.id, { score: 0.5, answer: f.params['answer'], custom: { nested: [1, 2] } });
      if (f.method === 'tasks.cancel') reply(s, f.id, { cancelled: true });
      if (f.method === 'bye') {
        reply(s, f.id, { goodbye: true });
        s.end();
      }
    });
    const ch = await channelTo(port);
    assert.equal((await ch.hello()).env.name, 'workspace');
    assert.deepEqual(
      (await ch.listTasks()).tasks.map((t) => t.id),
      ['solve'],
    );
    assert.deepEqual(await ch.start('solve', { n: 1 }), { prompt: 'go', extra: 1 });
    const grade = await ch.grade({ answer: 'x' });
    // The frame is returned unchanged (unknown fields included): it is what a verifier receives.
    assert.deepEqual(grade, { score: 0.5, answer: { answer: 'x' }, custom: { nested: [1, 2] } });
    assert.equal(await ch.cancel(), true);
    await ch.bye();
    assert.equal(ch.isClosed, true);
    assert.deepEqual(
      seen.map((f) => [f.method, f.params]),
      [
        ['hello', {}],
        ['tasks.list', {}],
        ['tasks.start', { id: 'solve', args: { n: 1 } }],
        ['tasks.grade', { answer: { answer: 'x' } }],
        ['tasks.cancel', {}],
        ['bye', {}],
      ],
    );
    assert.equal(new Set(seen.map((f) => f.id)).size, seen.length, 'request ids are unique');
    assert.ok(seen.every((f) => f.jsonrpc === '2.0'));
  });

  test('hello with a session id asks to resume it', async () => {
    let params: unknown;
    const { port } = await scripted(
      (f, s) => ((params = f.params), reply(s, f.id, { session_id: 'old', env: { name: 'e' }, bindings: [] })),
    );
    const ch = await channelTo(port);
    assert.equal((await ch.hello('old')).session_id, 'old');
    assert.deepEqual(params, { session_id: 'old' });
    ch.close();
  });

  test('an error frame rejects only its request, with the JSON-RPC code, and the session goes on', async () => {
    const { port } = await scripted((f, s) => {
      if (f.method === 'tasks.grade') fail(s, f.id, -32600, 'no task in progress');
      else if (f.method === 'nope') fail(s, f.id, -32601, 'method not found');
      else reply(s, f.id, { cancelled: true });
    });
    const ch = await channelTo(port);
    await assert.rejects(
      ch.grade('x'),
      (e: unknown) => e instanceof ProtocolError && e.rpcCode === -32600 && /no task in progress/.test(e.message),
    );
    await assert.rejects(ch.request('nope', {}), (e: unknown) => e instanceof ProtocolError && e.rpcCode === -32601);
    assert.equal(await ch.cancel(), true);
    ch.close();
  });

  test('responses are matched by id even when they arrive out of order', async () => {
    const held: Frame[] = [];
    const { port } = await scripted((f, s) => {
      held.push(f);
      if (held.length === 2) for (const h of [...held].reverse()) reply(s, h.id, { echo: h.params['n'] });
    });
    const ch = await channelTo(port);
    const [a, b] = await Promise.all([ch.request('x', { n: 1 }), ch.request('x', { n: 2 })]);
    assert.deepEqual([a, b], [{ echo: 1 }, { echo: 2 }]);
    ch.close();
  });

  test('a frame that is not JSON fails every pending request and closes the channel', async () => {
    const { port } = await scripted((_f, s) => void s.write('this is not json\n'));
    const ch = await channelTo(port);
    await assert.rejects(
      ch.hello(),
      (e: unknown) => e instanceof ProtocolError && /not JSON/.test(e.message) && e.rpcCode === undefined,
    );
    await ch.closed;
    await assert.rejects(ch.listTasks(), ProtocolError);
  });

  test('JSON that is not a JSON-RPC response is a protocol error', async () => {
    for (const bad of [
      { id: 1, result: 1 },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'x' } },
      [1, 2],
    ]) {
      const { port } = await scripted((_f, s) => void s.write(`${JSON.stringify(bad)}\n`));
      const ch = await channelTo(port);
      await assert.rejects(
        ch.request('m', {}),
        (e: unknown) => e instanceof ProtocolError && /not a JSON-RPC 2.0 response/.test(e.message),
        JSON.stringify(bad),
      );
    }
  });

  test('results of the wrong shape are rejected with the offending field', async () => {
    const { port } = await scripted((f, s) => {
      if (f.method === 'hello') reply(s, f.id, { session_id: 7 });
      if (f.method === 'tasks.grade') reply(s, f.id, { answer: 'no score here' });
    });
    const ch = await channelTo(port);
    await assert.rejects(ch.hello(), (e: unknown) => e instanceof ProtocolError && /session_id/.test(e.message));
    await assert.rejects(
      ch.grade('a'),
      (e: unknown) => e instanceof ProtocolError && /numeric "score"/.test(e.message),
    );
    ch.close();
  });

  test("the SDK's grade frame with null fields (subscores, content, info of a subscore) is read", async () => {
    // Exactly what hud-python's server sends for EvaluationResult(reward=0.5) and one with a subscore.
    const frames = [
      { done: true, content: null, info: {}, isError: false, subscores: null, score: 0.5 },
      {
        done: true,
        content: null,
        info: {},
        isError: false,
        score: 0.5,
        subscores: [{ name: 'a', weight: 1.0, value: 0.5, children: null, info: null }],
      },
    ];
    let next = 0;
    const { port } = await scripted((f, s) => reply(s, f.id, frames[next++]));
    const ch = await channelTo(port);
    try {
      for (const sent of frames) assert.deepEqual(await ch.grade('x'), sent);
    } finally {
      ch.close();
    }
  });

  test('a grade frame whose score is a boolean or whose isError is not a boolean is refused', async () => {
    const frames = [{ score: true }, { score: 1, isError: 'yes' }];
    let next = 0;
    const { port } = await scripted((f, s) => reply(s, f.id, frames[next++]));
    const ch = await channelTo(port);
    await assert.rejects(ch.grade('x'), ProtocolError);
    await assert.rejects(ch.grade('x'), ProtocolError);
    ch.close();
  });

  test('a request times out with a TimeoutError; a late answer is dropped and the channel still works', async () => {
    let first: Frame | undefined;
    const { port } = await scripted((f, s) => {
      if (!first) first = f;
      else {
        reply(s, first.id, { late: true });
        reply(s, f.id, { cancelled: true });
      }
    });
    const ch = await channelTo(port);
    await assert.rejects(
      ch.request('slow', {}, { timeoutMs: 50 }),
      (e: unknown) => e instanceof TimeoutError && /slow timed out/.test(e.message),
    );
    assert.equal(await ch.cancel(), true);
    ch.close();
  });

  test('an AbortSignal cancels a waiting request', async () => {
    const { port } = await scripted(() => undefined);
    const ch = await channelTo(port);
    const ctl = new AbortController();
    const pending = ch.start('t', {}, { signal: ctl.signal, timeoutMs: 0 });
    ctl.abort();
    await assert.rejects(pending, CancelledError);
    await assert.rejects(ch.start('t', {}, { signal: ctl.signal }), CancelledError);
    ch.close();
  });

  test('a connection the server drops rejects what is pending with a ProtocolError', async () => {
    const { port } = await scripted((_f, s) => s.destroy());
    const ch = await channelTo(port);
    await assert.rejects(ch.start('t', {}), (e: unknown) => e instanceof ProtocolError && /closed/.test(e.message));
    await ch.closed;
    await assert.rejects(
      ch.grade(1),
      (e: unknown) => e instanceof ProtocolError && /cannot send tasks.grade/.test(e.message),
    );
  });

  test('big frames: 16 MiB passes intact, a frame over the limit closes the channel', async () => {
    const big = 'x'.repeat(16 * 1024 * 1024);
    const { port } = await scripted((f, s) =>
      reply(s, f.id, { score: 1, blob: f.method === 'tasks.grade' ? big : undefined }),
    );
    const ch = await channelTo(port);
    const grade = await ch.grade(big);
    assert.equal((grade as unknown as { blob: string }).blob.length, big.length);
    ch.close();

    const small = await scripted((f, s) => reply(s, f.id, { blob: 'y'.repeat(2 * 1024 * 1024) }));
    const limited = await channelTo(small.port, { maxFrameBytes: 1024 * 1024 });
    await assert.rejects(
      limited.request('m', {}),
      (e: unknown) => e instanceof ProtocolError && /larger than 1048576 bytes/.test(e.message),
    );
    assert.equal(limited.isClosed, true);
  });

  test('frames split across many small chunks and notifications are handled', async () => {
    const notes: string[] = [];
    const { port } = await scripted((f, s) => {
      const text = `${JSON.stringify({ jsonrpc: '2.0', method: 'log', params: { line: 'hi' } })}\n${JSON.stringify({ jsonrpc: '2.0', id: f.id, result: { prompt: 'héllo ✓' } })}\n`;
      const bytes = Buffer.from(text);
      let i = 0;
      const drip = (): void => {
        if (i >= bytes.length) return;
        s.write(bytes.subarray(i, i + 3));
        i += 3;
        setImmediate(drip);
      };
      drip();
    });
    const ch = await channelTo(port, { onNotification: (n) => notes.push(n.method) });
    assert.deepEqual(await ch.start('t', {}), { prompt: 'héllo ✓' });
    assert.deepEqual(notes, ['log']);
    ch.close();
  });
});
