/**
 * Every Harbor fixture on the real Docker engine: the oracle scores 1, nop
 * scores 0, and nothing (container, compose network) is left behind.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, runTrial } from './support';

before(dockerReady);

const FIXTURES = ['shared-basic', 'separate-artifacts', 'compose-sidecar', 'reward-json', 'no-network', 'allowlist'];

for (const name of FIXTURES) {
  describe(name, () => {
    test('oracle scores 1', async () => {
      const { outcome } = await runTrial(join(HARBOR_FIXTURES, name), { agent: 'oracle' });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      assert.equal(outcome.reward, 1);
      const trace = readTrace(outcome.tracePath!);
      assert.equal(trace.task.kind, 'harbor');
      assert.equal(trace.harbor?.trialDir, outcome.trialDir);
      const result = JSON.parse(readFileSync(join(outcome.trialDir, 'result.json'), 'utf8'));
      assert.equal(result.hud_studio.reward, 1);
      assert.ok(result.verifier_result.rewards);
      assert.ok(
        result.environment_setup.started_at && result.agent_execution.finished_at && result.verifier.finished_at,
      );
      assert.ok(existsSync(join(outcome.trialDir, 'verifier', 'test-stdout.txt')));
    });

    test('nop scores 0', async () => {
      const { outcome } = await runTrial(join(HARBOR_FIXTURES, name), { agent: 'nop' });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
      assert.equal(outcome.reward, 0);
    });
  });
}

test('reward.json metrics become subscores and the trace keeps them', async () => {
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'reward-json'), { agent: 'oracle' });
  assert.deepEqual(
    (outcome.result?.subscores ?? []).map((s) => s.name),
    ['exists', 'correct', 'documented'],
  );
  assert.deepEqual(readTrace(outcome.tracePath!).harbor?.rewards, { exists: 1, correct: 1, documented: 1 });
  assert.ok(existsSync(join(outcome.trialDir, 'verifier', 'reward.json')));
});

test('separate verifier: fresh substrate, declared artifacts in the trial folder, excluded ones dropped', async () => {
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'separate-artifacts'), { agent: 'oracle' });
  assert.equal(outcome.reward, 1, readFileSync(join(outcome.trialDir, 'verifier', 'test-stdout.txt'), 'utf8'));
  const [actor, verifier] = outcome.trace.phases;
  assert.equal(verifier!.reused, false);
  assert.notEqual(actor!.substrate!.id, verifier!.substrate!.id);
  assert.equal(verifier!.substrate!.network, 'none');
  assert.equal(readFileSync(join(outcome.trialDir, 'artifacts', 'app', 'result.txt'), 'utf8'), '42\n');
  assert.ok(existsSync(join(outcome.trialDir, 'artifacts', 'report', 'summary.md')));
  assert.ok(!existsSync(join(outcome.trialDir, 'artifacts', 'report', 'notes.tmp')));
  assert.ok(!existsSync(join(outcome.trialDir, 'artifacts', 'app', 'agent-only.txt')));
});

test('compose: the collect hook ran in the sidecar service', async () => {
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'compose-sidecar'), { agent: 'oracle' });
  assert.equal(outcome.reward, 1);
  assert.equal(outcome.trace.phases[0]!.substrate!.provider, 'compose');
  assert.match(readFileSync(join(outcome.trialDir, 'verifier', 'collect-1-api.log'), 'utf8'), /sidecar-token-7f3a/);
  assert.equal(
    readFileSync(join(outcome.trialDir, 'artifacts', 'logs', 'artifacts', 'token.txt'), 'utf8'),
    'sidecar-token-7f3a',
  );
});
