import { describe, test } from 'node:test';
import { inspect } from 'node:util';
import assert from 'node:assert/strict';
import { cutMiddle } from '../../../client/src/engine/agents/llm/cutOutput';
import { resolveModel } from '../../../client/src/engine/agents/llm/modelRef';
import { createAgent } from '../../../client/src/engine/agents/create';
import { UsageError } from '../../../client/src/engine/errors';
import { parseSettings } from '../../../client/src/settings';

describe('llm model names and keys', () => {
  test('PROVIDER/MODEL picks the API, the address and the key variable', () => {
    const o = resolveModel('openai/gpt-4.1-mini', { env: { OPENAI_API_KEY: 'sk-o' } });
    assert.deepEqual([o.api, o.model, o.baseURL, o.apiKey()], ['openai', 'gpt-4.1-mini', undefined, 'sk-o']);
    const a = resolveModel('anthropic/claude-haiku-4-5', {
      env: { ANTHROPIC_API_KEY: 'sk-a', OPENAI_API_KEY: 'sk-o' },
    });
    assert.deepEqual([a.api, a.apiKey()], ['anthropic', 'sk-a']);
    const h = resolveModel('hud/some/model', { env: { HUD_API_KEY: 'h', HUD_GATEWAY_URL: 'https://gw.example/v1' } });
    assert.deepEqual([h.api, h.model, h.baseURL, h.apiKey()], ['openai', 'some/model', 'https://gw.example/v1', 'h']);
    const c = resolveModel('openai-compatible/qwen', {
      baseUrl: 'http://127.0.0.1:8000/v1',
      env: { OPENAI_API_KEY: 'sk-o' },
    });
    assert.equal(c.apiKey(), undefined, 'a compatible server never gets the OpenAI key');
    const over = resolveModel('openai/gpt', { baseUrl: 'http://127.0.0.1:9/v1', env: {} });
    assert.equal(over.baseURL, 'http://127.0.0.1:9/v1', '--base-url overrides, and then the key is optional');
  });

  test('bad names and missing keys are usage errors that say the fix', () => {
    for (const [name, env, re] of [
      ['gpt-4', {}, /not PROVIDER\/MODEL/],
      ['mistral/x', {}, /not PROVIDER\/MODEL/],
      ['openai/', {}, /not PROVIDER\/MODEL/],
      ['openai/gpt', {}, /needs OPENAI_API_KEY/],
      ['hud/m', { HUD_API_KEY: 'h' }, /needs HUD_GATEWAY_URL/],
      ['openai-compatible/m', {}, /needs --base-url/],
    ] as const) {
      assert.throws(
        () => resolveModel(name, { env }),
        (e: unknown) => e instanceof UsageError && re.test(e.message),
        name,
      );
    }
    assert.throws(() => resolveModel('openai/x', { baseUrl: 'ftp://h', env: {} }), /must be http/);
    assert.throws(() => createAgent({ agent: 'llm' }), /needs --model/);
  });

  test('the key never serializes', () => {
    const e = resolveModel('openai/gpt', { env: { OPENAI_API_KEY: 'sk-very-secret' } });
    const agent = createAgent({ model: 'openai/gpt', modelEnv: { OPENAI_API_KEY: 'sk-very-secret' } });
    assert.equal(agent.kind, 'llm');
    const texts = [
      JSON.stringify(e),
      JSON.stringify(agent),
      agent.describe(),
      inspect(e, { depth: 9 }),
      inspect(agent, { depth: 9 }),
    ];
    for (const text of texts) assert.equal(text.includes('sk-very-secret'), false, text);
  });
});

describe('tool output cut', () => {
  test('short output is kept; long output keeps head and tail and says how much was cut', () => {
    assert.equal(cutMiddle('abc', 10), 'abc');
    const out = cutMiddle('a'.repeat(50) + 'b'.repeat(50), 20);
    assert.equal(out, `${'a'.repeat(10)}\n[... 80 characters cut ...]\n${'b'.repeat(10)}`);
  });
});

describe('hudStudio.models', () => {
  test('strings and objects, bad entries fall back with a problem', () => {
    const ok = parseSettings({
      models: ['openai/gpt-4.1-mini', { model: 'openai-compatible/q', baseUrl: 'http://127.0.0.1:1/v1' }],
    });
    assert.deepEqual(ok.problems, []);
    assert.deepEqual(ok.settings.models, [
      { model: 'openai/gpt-4.1-mini' },
      { model: 'openai-compatible/q', baseUrl: 'http://127.0.0.1:1/v1' },
    ]);
    const bad = parseSettings({ models: ['gpt-4'] });
    assert.deepEqual(bad.settings.models, []);
    assert.match(bad.problems[0]!.message, /hudStudio\.models\.0: expected PROVIDER\/MODEL/);
  });
});
