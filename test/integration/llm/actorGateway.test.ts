/**
 * The actor's model gateway (docs/models.md): an environment that declares it
 * calls models (runtime_config needs_models) gets a gateway in its actor
 * substrate with a token of its own; the grader's gateway refuses that token
 * and the actor's refuses the grader's; without the declaration the actor
 * substrate has no gateway at all, even with a judge configured.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { resolveModel } from '../../../client/src/engine/agents/llm/modelRef';
import { readTrace } from '../../../client/src/engine/trace/store';
import { startScriptedModel } from '../../support/scriptedModels';
import { dockerUnderTest } from '../docker/dockerUnderTest';
import { localUnderTest } from '../engine-local/localUnderTest';
import { removeScratch, rolloutOn, type ProviderUnderTest } from '../engine-local/rules';

const FIXTURE = join(__dirname, 'fixtures', 'actor_models', 'env.py');
const KEY = 'sk-upstream-HOST-ONLY-51ac';

interface Seen {
  url: string;
  token: string;
}

function actorGatewayTests(put: ProviderUnderTest): void {
  const judgeAt = (baseUrl: string) => resolveModel('openai/judge-mini', { baseUrl, env: { OPENAI_API_KEY: KEY } });
  /** A grader's token from a rollout of the plain task, for the actor's gateway to refuse. */
  let graderToken = '';

  test(`${put.name}: no gateway in the actor substrate unless the environment declares it needs models`, async () => {
    const upstream = await startScriptedModel('openai', [], { whenExhausted: { text: 'hi' } });
    try {
      const { outcome } = await rolloutOn(put, `${FIXTURE}::plain`, new FixedAgent('x'), {
        judge: judgeAt(upstream.baseUrl),
      });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      const info = outcome.result!.info;
      assert.deepEqual(info['actor'], { url: '', token: '' }, 'the actor saw no gateway variables');
      assert.equal(info['actor_own'], 'no gateway');
      assert.equal(info['grader_own'], 200, 'the grader still has its gateway');
      assert.equal(upstream.requests.length, 1);
      graderToken = (info['grader'] as Seen).token;
    } finally {
      await upstream.close();
    }
  });

  test(`${put.name}: the actor's gateway and the grader's each take only their own token`, async () => {
    assert.match(graderToken, /^hud-studio-rollout-[0-9a-f]{48}$/, 'the first test kept a grader token');
    const upstream = await startScriptedModel('openai', [], {
      whenExhausted: { text: 'hi', usage: { input: 3, output: 1 } },
    });
    try {
      const { outcome, substrates } = await rolloutOn(put, `${FIXTURE}::task`, new FixedAgent(graderToken), {
        judge: judgeAt(upstream.baseUrl),
      });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      const info = outcome.result!.info;
      const actor = info['actor'] as Seen;
      const grader = info['grader'] as Seen;
      assert.match(actor.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(actor.token, /^hud-studio-rollout-[0-9a-f]{48}$/);
      assert.notEqual(actor.token, grader.token, 'the actor has a token of its own');
      assert.equal(info['actor_own'], 200, "the actor's token works at its own gateway");
      assert.equal(info['grader_own'], 200, "the grader's token works at its own gateway");
      assert.equal(info['actor_token_at_grader'], 401, "the grader's gateway refuses the actor's token");
      assert.equal(info['grader_token_at_actor'], 401, "the actor's gateway refuses a grader's token");
      assert.equal(upstream.requests.length, 2, 'only the calls with the right token reached the upstream');
      for (const r of upstream.requests) assert.equal(r.headers['authorization'], `Bearer ${KEY}`);
      const trace = readTrace(outcome.tracePath!);
      assert.deepEqual(trace.judgeCalls.map((c) => c.phase).sort(), ['actor', 'verifier']);
      assert.equal(JSON.stringify(trace).includes(KEY), false, 'the upstream key is not in the trace');
      await put.assertReleased(substrates, outcome.rolloutId);
    } finally {
      await upstream.close();
    }
  });
}

describe('the actor-side model gateway', () => {
  after(removeScratch);
  actorGatewayTests(localUnderTest);
  actorGatewayTests(dockerUnderTest);
});
