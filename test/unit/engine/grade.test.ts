import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { actorErrorResult, gradeFromFrame } from '../../../client/src/engine/grade';
import { createAgent } from '../../../client/src/engine/agents/create';
import { ProtocolError, UsageError } from '../../../client/src/engine/errors';
import { scrubbedEnv } from '../../../client/src/engine/providers/scrubbedEnv';
import { parseRuntime } from '../../../client/src/engine/providers/select';
import { parseTcpAddress } from '../../../client/src/engine/providers/url';

describe('grade frames', () => {
  test('score becomes reward; SDK `info` on a subscore becomes metadata; weights default to 1', () => {
    const result = gradeFromFrame({
      score: 0.75,
      subscores: [
        { name: 'a', value: 1, info: { k: 1 } },
        { name: 'pen', value: 1, weight: -0.5, children: [{ name: 'c', value: 0 }] },
      ],
      info: { x: 1 },
      content: 'why',
      isError: false,
      answer: 'kept in the raw frame only',
    });
    assert.deepEqual(result, {
      reward: 0.75,
      subscores: [
        { name: 'a', value: 1, weight: 1, metadata: { k: 1 } },
        { name: 'pen', value: 1, weight: -0.5, children: [{ name: 'c', value: 0, weight: 1 }] },
      ],
      info: { x: 1 },
      content: 'why',
      isError: false,
    });
  });

  test('null fields as the SDK sends them read as absent', () => {
    const result = gradeFromFrame({
      done: true,
      content: null,
      info: {},
      isError: false,
      score: 0.5,
      subscores: [{ name: 'a', weight: 1.0, value: 0.5, children: null, info: null }],
    });
    assert.deepEqual(result, {
      reward: 0.5,
      subscores: [{ name: 'a', value: 0.5, weight: 1 }],
      info: {},
      isError: false,
    });
    assert.deepEqual(gradeFromFrame({ score: 1, subscores: null, info: null, isError: null }), {
      reward: 1,
      subscores: [],
      info: {},
      isError: false,
    });
  });

  test('a subscore that cannot be read fails the grade instead of being dropped (the reward would not add up)', () => {
    for (const bad of [
      { name: 'x' },
      { name: 'x', value: 'high' },
      { name: 'x', value: 2 },
      { value: 1 },
      'x',
      { name: 'x', value: 1, children: [{ name: 'y' }] },
      // As the SDK's model: a field it does not know, a null weight, both names for the metadata.
      { name: 'x', value: 1, note: 'extra' },
      { name: 'x', value: 1, weight: null },
      { name: 'x', value: 1, info: {}, metadata: {} },
      { name: 'x', value: '5.5' },
      { name: 'x', value: 'true' },
    ]) {
      assert.throws(
        () => gradeFromFrame({ score: 1, subscores: [bad] }),
        (e: unknown) => e instanceof ProtocolError && /subscore/.test(e.message),
        JSON.stringify(bad),
      );
    }
    assert.throws(() => gradeFromFrame({ score: 1, subscores: 'all good' }), ProtocolError);
  });

  test('numbers in a subscore may come as numeric text or booleans, as the SDK reads them', () => {
    const { subscores } = gradeFromFrame({
      score: 1,
      subscores: [
        { name: 'text', value: ' 0.5 ', weight: '2' },
        { name: 'bool', value: true, weight: false },
        { name: 'exp', value: '1e-1' },
      ],
    });
    assert.deepEqual(
      subscores.map((s) => [s.name, s.value, s.weight]),
      [
        ['text', 0.5, 2],
        ['bool', 1, 0],
        ['exp', 0.1, 1],
      ],
    );
  });

  test('the stand-in for a failed actor grading keeps the answer', () => {
    assert.deepEqual(actorErrorResult({ text: 'a' }, 'boom'), {
      score: 0,
      answer: { text: 'a' },
      isError: true,
      content: 'boom',
    });
  });
});

describe('agent and runtime choices', () => {
  test('--agent defaults follow --answer / --command', () => {
    assert.equal(createAgent({ answer: 'x' }).kind, 'fixed');
    assert.equal(createAgent({ command: 'echo x' }).kind, 'command');
    assert.equal(createAgent({}).kind, 'nop');
    assert.equal(createAgent({ agent: 'nop', answer: 'x' }).kind, 'nop');
    assert.throws(() => createAgent({ agent: 'fixed' }), UsageError);
    assert.throws(() => createAgent({ agent: 'command' }), UsageError);
    assert.throws(() => createAgent({ agent: 'gpt' }), /unknown agent "gpt"/);
    assert.throws(() => createAgent({ agent: 'llm' }), /--agent llm needs --model/);
  });

  test('runtimes and tcp addresses', () => {
    assert.equal(parseRuntime('auto'), 'auto');
    assert.equal(parseRuntime('tcp://127.0.0.1:9'), 'tcp://127.0.0.1:9');
    assert.throws(() => parseRuntime('kubernetes'), UsageError);
    assert.deepEqual(parseTcpAddress('tcp://[::1]:8765'), { host: '::1', port: 8765 });
    assert.deepEqual(parseTcpAddress('tcp://localhost:1/'), { host: 'localhost', port: 1 });
    assert.throws(() => parseTcpAddress('tcp://host:99999'), UsageError);
    assert.throws(() => parseTcpAddress('http://host:80'), UsageError);
  });
});

describe('scrubbed environment', () => {
  test("keeps only the allow-list, sets a private HOME/TMPDIR, then the environment's own variables", () => {
    const env = scrubbedEnv(
      {
        PATH: '/bin',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        TZ: 'UTC',
        AWS_SECRET_ACCESS_KEY: 'leak',
        HOME: '/root',
        PYTHONPATH: '/host/site',
        OPENAI_API_KEY: 'leak',
      },
      { home: '/t/home', tmp: '/t/tmp', pythonPath: '/rt', extra: { JUDGE_KEY: 'k' } },
    );
    assert.deepEqual(env, {
      PATH: '/bin',
      LANG: 'C.UTF-8',
      LC_ALL: 'C',
      TZ: 'UTC',
      HOME: '/t/home',
      TMPDIR: '/t/tmp',
      PYTHONUNBUFFERED: '1',
      PYTHONDONTWRITEBYTECODE: '1',
      PYTHONIOENCODING: 'utf-8',
      PYTHONPATH: '/rt',
      JUDGE_KEY: 'k',
    });
  });
});
