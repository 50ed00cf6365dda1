/**
 * `hud-studio eval DIR` over a folder of Harbor task directories (a dataset)
 * runs every task with attempts and leaves a job folder Harbor's own JobResult
 * model loads, with Harbor's metrics and pass@k.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, REPO_ROOT } from './support';
import { HARBOR_PEER_SETUP } from '../../harborPeer';

const PEER_SETUP = HARBOR_PEER_SETUP;
const CLI = join(REPO_ROOT, 'bin', 'hud-studio.js');

before(dockerReady);

test('eval over a dataset folder: every task, --group attempts, a Harbor job folder with metrics', () => {
  const dataset = mkdtempSync(join(tmpdir(), 'hs-dataset-'));
  for (const name of ['shared-basic', 'reward-json'])
    cpSync(join(HARBOR_FIXTURES, name), join(dataset, name), { recursive: true });
  const traces = mkdtempSync(join(tmpdir(), 'hs-dataset-traces-'));
  execFileSync('node', [CLI, 'eval', dataset, '--agent', 'oracle', '--group', '2', '--trace-dir', traces], {
    cwd: dataset,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const jobs = readdirSync(join(traces, 'jobs'));
  assert.equal(jobs.length, 1);
  const jobDir = join(traces, 'jobs', jobs[0]!);
  const trials = readdirSync(jobDir).filter((n) => existsSync(join(jobDir, n, 'result.json')));
  assert.equal(trials.length, 4, trials.join(', '));
  const pythonPath = execFileSync('bash', [PEER_SETUP], { encoding: 'utf8' })
    .trim()
    .replace(/^PYTHONPATH=/, '');
  const out = execFileSync(
    'python3',
    [
      '-c',
      [
        'import json, sys',
        'from harbor.models.job.result import JobResult',
        'r = JobResult.model_validate_json(open(sys.argv[1] + "/result.json").read())',
        'e = r.stats.evals["oracle__adhoc"]',
        'print(json.dumps({"n": r.n_total_trials, "done": r.stats.n_completed_trials, "trials": e.n_trials, "metrics": e.metrics, "pass": {str(k): v for k, v in e.pass_at_k.items()}}))',
      ].join('\n'),
      jobDir,
    ],
    { encoding: 'utf8', env: { ...process.env, PYTHONPATH: pythonPath } },
  );
  const v = JSON.parse(out) as {
    n: number;
    done: number;
    trials: number;
    metrics: Record<string, number>[];
    pass: Record<string, number>;
  };
  assert.equal(v.n, 4);
  assert.equal(v.done, 4);
  assert.equal(v.trials, 4);
  assert.equal(v.metrics.length, 4);
  assert.ok(
    v.metrics.every((m) => Object.values(m).every(Number.isFinite)),
    JSON.stringify(v.metrics),
  );
});
