/** The gateway alone, against a scripted upstream on 127.0.0.1: token check, path allow-list, key added on the host. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveModel } from '../../../client/src/engine/agents/llm/modelRef';
import { ModelGateway, type GatewayRequest } from '../../../client/src/engine/gateway/modelGateway';
import type { JudgeCallRead as JudgeCall } from '../../../client/src/engine/gateway/judgeCall';
import { startScriptedModel } from '../../support/scriptedModels';

const body = Buffer.from(
  JSON.stringify({ model: 'whatever', messages: [{ role: 'user', content: 'Requirement: be short' }] }),
);
const req = (headers: Record<string, string>, path = '/chat/completions', method = 'POST'): GatewayRequest => ({
  method,
  path,
  headers,
  body,
});

describe('model gateway', () => {
  test('refuses a missing or wrong token and any other path; forwards with the real key and reports the call', async () => {
    const upstream = await startScriptedModel('anthropic', [
      { text: '{"verdict": "UNMET", "reason": "too long"}', usage: { input: 9, output: 4 } },
    ]);
    try {
      const calls: JudgeCall[] = [];
      const gw = new ModelGateway({
        upstream: resolveModel('anthropic/judge', {
          baseUrl: `${upstream.baseUrl}/v1`,
          env: { ANTHROPIC_API_KEY: 'sk-real' },
        }),
        onCall: (c) => calls.push(c),
      });
      assert.equal((await gw.handle(req({}))).status, 401);
      assert.equal(
        (await gw.handle(req({ authorization: 'Bearer sk-real' }))).status,
        401,
        'not even the real key passes',
      );
      assert.equal((await gw.handle(req({ authorization: `Bearer ${gw.token}x` }))).status, 401);
      assert.equal((await gw.handle(req({ authorization: `Bearer ${gw.token}` }, '/models', 'GET'))).status, 404);
      assert.equal((await gw.handle(req({ authorization: `Bearer ${gw.token}` }, '/../admin'))).status, 404);
      assert.equal(upstream.requests.length, 0, 'nothing refused reached the upstream');
      const ok = await gw.handle(req({ 'x-api-key': gw.token }, '/v1/messages'));
      assert.equal(ok.status, 200);
      assert.equal(upstream.requests[0]!.headers['x-api-key'], 'sk-real');
      assert.equal(upstream.requests[0]!.body['model'], 'judge');
      assert.equal(upstream.requests[0]!.path, '/v1/messages');
      assert.deepEqual(calls, [
        {
          model: 'anthropic/judge',
          status: 200,
          durationMs: calls[0]!.durationMs,
          criterion: 'be short',
          verdict: 'UNMET',
          reason: 'too long',
          tokens: { input: 9, output: 4 },
        },
      ]);
    } finally {
      await upstream.close();
    }
  });
});
