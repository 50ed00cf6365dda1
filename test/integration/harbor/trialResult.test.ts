/**
 * A HUD Studio trial folder is one Harbor's own tools can read: its
 * result.json, config.json and artifacts/manifest.json load with the peer's
 * pydantic models (Harbor v0.13.2) on the host's python3.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, fixtureVariant, runTrial } from './support';
import { HARBOR_PEER_SETUP } from '../../harborPeer';

const PEER_SETUP = HARBOR_PEER_SETUP;

let pythonPath = '';
before(async () => {
  await dockerReady();
  assert.ok(
    existsSync(PEER_SETUP),
    `${PEER_SETUP} is missing: the Harbor peer checkout is needed to validate trial folders`,
  );
  pythonPath = execFileSync('bash', [PEER_SETUP], { encoding: 'utf8' })
    .trim()
    .replace(/^PYTHONPATH=/, '');
});

const VALIDATE = `
import json, sys
from harbor.models.trial.result import TrialResult
from harbor.models.trial.config import TrialConfig
from harbor.models.trial.artifact_manifest import ArtifactManifestEntry
trial = sys.argv[1]
r = TrialResult.model_validate_json(open(trial + "/result.json").read())
TrialConfig.model_validate_json(open(trial + "/config.json").read())
try:
    entries = [ArtifactManifestEntry.model_validate(e) for e in json.load(open(trial + "/artifacts/manifest.json"))]
except FileNotFoundError:
    entries = []
print(json.dumps({
    "rewards": r.verifier_result.rewards if r.verifier_result else None,
    "exception": r.exception_info.exception_type if r.exception_info else None,
    "trial_name": r.trial_name, "task_name": r.task_name, "task_id": str(r.task_id.get_name()),
    "manifest": [[e.source, e.destination, e.status] for e in entries],
}))
`;

function validate(trialDir: string): {
  rewards: Record<string, number> | null;
  exception: string | null;
  trial_name: string;
  task_name: string;
  manifest: string[][];
} {
  const out = execFileSync('python3', ['-c', VALIDATE, trialDir], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: pythonPath },
  });
  return JSON.parse(out) as ReturnType<typeof validate>;
}

test("a completed trial's folder validates against Harbor's TrialResult and TrialConfig", async () => {
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'separate-artifacts'), { agent: 'oracle' });
  assert.equal(outcome.reward, 1, JSON.stringify(outcome.error));
  const v = validate(outcome.trialDir);
  assert.deepEqual(v.rewards, { reward: 1 });
  assert.equal(v.exception, null);
  assert.equal(v.task_name, 'hud-studio-fixtures/separate-artifacts');
  assert.deepEqual(v.manifest[0], ['/logs/artifacts', 'logs/artifacts', 'ok']);
  assert.deepEqual(v.manifest.slice(1), [
    ['/app/result.txt', 'app/result.txt', 'ok'],
    ['/app/report', 'report', 'ok'],
  ]);
  for (const f of ['config.json', 'trial.log', 'verifier/test-stdout.txt', 'agent/oracle.txt'])
    assert.ok(existsSync(join(outcome.trialDir, f)), f);
  assert.match(readFileSync(join(outcome.trialDir, 'trial.log'), 'utf8'), /verify completed/);
});

test('a failed trial records Harbor exception names, exception.txt and the agent exit code', async () => {
  const dir = fixtureVariant('shared-basic', {
    'solution/solve.sh': '#!/bin/sh\necho "hello, harbor" > /app/greeting.txt\necho oops >&2\nexit 3\n',
    'tests/test.sh': '#!/bin/bash\necho "checking, writing nothing"\necho "on stderr" >&2\n',
  });
  const { outcome } = await runTrial(dir, { agent: 'oracle' });
  assert.equal(outcome.status, 'error');
  const v = validate(outcome.trialDir);
  assert.equal(v.exception, 'RewardFileNotFoundError');
  assert.equal(readFileSync(join(outcome.trialDir, 'agent', 'exit-code.txt'), 'utf8'), '3');
  assert.match(readFileSync(join(outcome.trialDir, 'exception.txt'), 'utf8'), /wrote no reward file/);
  // Harbor keeps the test script's stdout and stderr merged in one file.
  const merged = readFileSync(join(outcome.trialDir, 'verifier', 'test-stdout.txt'), 'utf8');
  assert.match(merged, /checking, writing nothing/);
  assert.match(merged, /on stderr/);
  assert.match(readFileSync(join(outcome.trialDir, 'agent', 'oracle.txt'), 'utf8'), /oops/);
});

test('an agent timeout is recorded as AgentTimeoutError while the verifier still runs', async () => {
  const dir = fixtureVariant('shared-basic', {
    'task.toml': readFileSync(join(HARBOR_FIXTURES, 'shared-basic', 'task.toml'), 'utf8').replace(
      'timeout_sec = 60\n',
      'timeout_sec = 1\n',
    ),
  });
  const { outcome } = await runTrial(dir, { agent: 'command', command: 'sleep 30' });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  const v = validate(outcome.trialDir);
  assert.equal(v.exception, 'AgentTimeoutError');
  assert.deepEqual(v.rewards, { reward: 0 });
});
