/**
 * A judge through the model gateway: the verifier runs in a container with
 * network none, LLMJudgeGrader reaches a scripted upstream only through the
 * gateway on its own loopback, the upstream gets the real key (added on the
 * host) and the configured model, the verifier holds a per-rollout token, and
 * every judge call is in the trace.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { resolveModel } from '../../../client/src/engine/agents/llm/modelRef';
import { readTrace } from '../../../client/src/engine/trace/store';
import { startScriptedModel, type ScriptEntry } from '../../support/scriptedModels';
import { dockerUnderTest } from '../docker/dockerUnderTest';
import { localUnderTest } from '../engine-local/localUnderTest';
import { removeScratch, rolloutOn, scratchDir, type ProviderUnderTest } from '../engine-local/rules';
import { cli } from '../cli/cliHarness';

const JUDGED = join(__dirname, 'fixtures', 'judged', 'env.py');
const JUDGE_KEY = 'sk-judge-HOST-ONLY-93be';
const verdict = (v: 'MET' | 'UNMET', reason: string): ScriptEntry => ({
  text: JSON.stringify({ verdict: v, reason }),
  usage: { input: 50, output: 8 },
});

function judgeTests(put: ProviderUnderTest): void {
  test(`${put.name}: weighted and negative criteria judged through the gateway; a token in the substrate, the key on the host`, async () => {
    // Three parallel criteria: every reply says the same per verdict the test expects, so their order does not matter.
    const upstream = await startScriptedModel('openai', [], { whenExhausted: verdict('MET', 'it does') });
    try {
      const judge = resolveModel('openai/judge-mini', {
        baseUrl: upstream.baseUrl,
        env: { OPENAI_API_KEY: JUDGE_KEY },
      });
      const { outcome, substrates } = await rolloutOn(
        put,
        JUDGED,
        new FixedAgent('Rayleigh scattering favours short wavelengths.'),
        { judge },
      );
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      // All MET: (1 + 2 - 1) / 3 for the negative criterion counting against the positives.
      assert.ok(outcome.reward !== null && Math.abs(outcome.reward - 2 / 3) < 1e-9, `reward ${outcome.reward}`);
      assert.equal(upstream.requests.length, 3, 'one upstream call per criterion');
      for (const r of upstream.requests) {
        assert.equal(r.headers['authorization'], `Bearer ${JUDGE_KEY}`, 'the host added the real key');
        assert.equal(r.body['model'], 'judge-mini', 'the configured judge model was used');
      }
      const info = outcome.result!.info;
      assert.match(String(info['gateway_url']), /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(String(info['gateway_token']), /^hud-studio-rollout-[0-9a-f]{48}$/);
      if (put.name === 'docker')
        assert.deepEqual(info['interfaces'], ['lo'], 'the verifier had no network but its loopback');
      const text = readFileSync(outcome.tracePath!, 'utf8');
      assert.equal(text.includes(JUDGE_KEY), false, 'the judge key is not in the trace');
      const logs = readTrace(outcome.tracePath!)
        .phases.find((p) => p.name === 'verifier')!
        .logs.map((l) => l.text);
      const calls = logs.filter((l) => l.startsWith('judge openai/judge-mini'));
      assert.equal(calls.length, 3);
      assert.ok(
        calls.some(
          (c) =>
            c.includes('criterion "Claims the sky reflects the ocean"') &&
            c.includes('MET') &&
            c.includes('reason: it does'),
        ),
      );
      assert.ok(calls.every((c) => c.includes('tokens in 50 out 8')));
      // The same calls, structured, for the explorer to show under the judge's subscore.
      const recorded = readTrace(outcome.tracePath!).judgeCalls;
      assert.deepEqual(recorded.map((c) => c.criterion).sort(), [
        'Claims the sky reflects the ocean',
        'Mentions scattering',
        'Mentions wavelength',
      ]);
      for (const c of recorded) {
        assert.equal(c.phase, 'verifier');
        assert.equal(c.model, 'openai/judge-mini');
        assert.equal(c.verdict, 'MET');
        assert.deepEqual(c.tokens, { input: 50, output: 8 });
      }
      const judgeSub = outcome.result!.subscores.find((s) => s.name === 'LLMJudgeGrader');
      const listed = (judgeSub?.metadata?.['criteria'] as { requirement: string }[]).map((c) => c.requirement);
      assert.ok(
        recorded.every((c) => listed.includes(c.criterion!)),
        'each call names a criterion the subscore lists',
      );
      await put.assertReleased(substrates, outcome.rolloutId);
    } finally {
      await upstream.close();
    }
  });

  test(`${put.name}: the engine's token wins over an environment variable of the same name`, async () => {
    const upstream = await startScriptedModel('openai', [], { whenExhausted: verdict('MET', 'ok') });
    try {
      const judge = resolveModel('openai/judge-mini', {
        baseUrl: upstream.baseUrl,
        env: { OPENAI_API_KEY: JUDGE_KEY },
      });
      // A HUD_API_KEY of the judge environment's own (a secret, an env file) would not pass the gateway's check.
      const { outcome } = await rolloutOn(put, JUDGED, new FixedAgent('x'), {
        judge,
        credentials: { judge: { HUD_API_KEY: 'forged' } },
      });
      // The engine's token wins over the environment's own variable: the judge still works.
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      assert.notEqual(outcome.result!.info['gateway_token'], 'forged');
    } finally {
      await upstream.close();
    }
  });
}

describe('model gateway for judges', () => {
  after(removeScratch);
  test('the CLI: --judge-model and --judge-base-url put the gateway in front of the verifier', async () => {
    const upstream = await startScriptedModel('openai', [], { whenExhausted: verdict('UNMET', 'no') });
    try {
      const args = [
        'run',
        JUDGED,
        '--answer',
        'it is magic',
        '--runtime',
        'local',
        '--trace-dir',
        scratchDir('judge-cli-'),
        '--json',
      ];
      const r = await cli([
        ...args,
        '--judge-model',
        'openai-compatible/judge-mini',
        '--judge-base-url',
        upstream.baseUrl,
      ]);
      assert.equal(r.code, 0, r.stderr);
      // Nothing MET, and the mistake was not made: 0 / 3.
      assert.equal((JSON.parse(r.stdout) as { reward: number }).reward, 0);
      assert.equal(upstream.requests.length, 3);
      assert.equal(upstream.requests[0]!.body['model'], 'judge-mini');
    } finally {
      await upstream.close();
    }
  });
  judgeTests(localUnderTest);
  judgeTests(dockerUnderTest);
});
