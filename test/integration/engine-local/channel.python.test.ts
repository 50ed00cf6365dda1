/** The TypeScript channel client against the bundled Python server, over real TCP: every method and error path. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { ControlChannel } from '../../../client/src/engine/channel/client';
import { RpcCode } from '../../../client/src/engine/channel/messages';
import { ProtocolError } from '../../../client/src/engine/errors';
import { LocalProvider } from '../../../client/src/engine/providers/local';
import type { Substrate } from '../../../client/src/engine/providers/provider';
import { FIXTURES } from './rules';

describe('channel client against the bundled server', () => {
  let substrate: Substrate;
  const serverLog: string[] = [];
  const open = async (): Promise<ControlChannel> =>
    new ControlChannel(await substrate.openChannel(), { requestTimeoutMs: 10_000 });

  before(async () => {
    substrate = await new LocalProvider().acquire(
      { envFile: FIXTURES.rules, envDir: dirname(FIXTURES.rules), runtimeConfig: null },
      { rolloutId: 'channelpy', phase: 'actor', log: () => undefined },
    );
    await substrate.serve({ envName: 'workspace', log: (_stream, text) => serverLog.push(text) });
  });
  after(() => substrate.release());

  test('hello, tasks.list, start, grade, cancel and bye', async () => {
    const ch = await open();
    const hello = await ch.hello();
    assert.equal(hello.env.name, 'workspace');
    assert.match(hello.session_id, /\w+/);
    const list = await ch.listTasks();
    assert.ok(list.tasks.some((t) => t.id === 'fine'));
    assert.deepEqual(await ch.start('fine', {}), { prompt: 'Say something.' });
    const grade = await ch.grade({ nested: ['answer', 1] });
    assert.equal(grade.score, 0.5);
    assert.deepEqual(grade['answer'], { nested: ['answer', 1] });
    await ch.start('fine', {});
    assert.equal(await ch.cancel(), true);
    await ch.bye();
    assert.equal(ch.isClosed, true);
  });

  test('error codes: unknown method, unknown task, grade with nothing started, a template that raises', async () => {
    const ch = await open();
    await ch.hello();
    await assert.rejects(
      ch.request('tasks.frobnicate', {}),
      (e: unknown) => e instanceof ProtocolError && e.rpcCode === RpcCode.methodNotFound,
    );
    await assert.rejects(
      ch.start('no_such_template', {}),
      (e: unknown) => e instanceof ProtocolError && e.rpcCode === RpcCode.invalidParams,
    );
    await assert.rejects(
      ch.grade('x'),
      (e: unknown) =>
        e instanceof ProtocolError && e.rpcCode === RpcCode.invalidRequest && /no task in progress/.test(e.message),
    );
    await ch.start('broken_grade', {});
    await assert.rejects(
      ch.grade('y'),
      (e: unknown) =>
        e instanceof ProtocolError &&
        e.rpcCode === RpcCode.templateError &&
        /actor grader exploded on y/.test(e.message),
    );
    // The session survives every error.
    assert.equal((await ch.listTasks()).tasks.length > 0, true);
    await ch.bye();
  });

  test('a dropped connection parks the task; hello with the session id resumes it', async () => {
    const first = await open();
    const { session_id } = await first.hello();
    await first.start('fine', {});
    first.close();
    await waitUntil('the server to park the session', () =>
      serverLog.some((l) => l.includes(`parked session ${session_id}`)),
    );
    const second = await open();
    assert.equal((await second.hello(session_id)).session_id, session_id);
    assert.equal((await second.grade('resumed')).score, 0.5);
    await second.bye();
  });

  test('a 20 MiB answer travels both ways intact', async () => {
    const ch = await open();
    await ch.hello();
    await ch.start('fine', {});
    const big = 'é'.repeat(10 * 1024 * 1024);
    const grade = await ch.grade(big);
    assert.equal(grade['answer'], big);
    await ch.bye();
  });
});

/** Polls until `check` holds; fails naming what it waited for. */
async function waitUntil(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
