import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobSummary } from '../../../client/src/engine/job';
import { FIXTURES, scratchDir } from '../engine-local/rules';
import { cli } from './cliHarness';

describe('hud-studio eval', () => {
  test('every task N times with bounded concurrency: mean reward, pass@k, one trace per run, a summary file', async () => {
    const dir = scratchDir('hs-eval-');
    const r = await cli([
      'eval',
      FIXTURES.twoEnv,
      FIXTURES.sameEnv,
      '--answer',
      'secret',
      '--group',
      '2',
      '--max-concurrent',
      '2',
      '--runtime',
      'local',
      '--trace-dir',
      dir,
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as JobSummary;
    assert.equal(s.total, 4);
    assert.equal(s.completed, 4);
    assert.equal(s.meanReward, 1);
    assert.equal(s.passAtK, 1);
    assert.equal(s.k, 2);
    assert.deepEqual(
      s.tasks.map((t) => [t.ref, t.runs.length]),
      [
        [`${FIXTURES.twoEnv}::task`, 2],
        [`${FIXTURES.sameEnv}::task`, 2],
      ],
    );
    assert.equal(new Set(s.traces).size, 4);
    assert.ok(s.traces.every((t) => existsSync(t)));
    assert.ok(s.summaryPath?.endsWith('.hudjob.json'));
    assert.deepEqual(JSON.parse(readFileSync(s.summaryPath!, 'utf8')), { ...s, summaryPath: s.summaryPath });
  });

  test('errors are counted per phase, the threshold decides passing, and any error exits 1', async () => {
    const dir = scratchDir('hs-eval-');
    const r = await cli([
      'eval',
      `${FIXTURES.rules}::verifier_fails`,
      `${FIXTURES.rules}::no_verifier`,
      '--answer',
      'x',
      '--group',
      '2',
      '--threshold',
      '0.5',
      '--runtime',
      'local',
      '--trace-dir',
      dir,
      '--json',
    ]);
    assert.equal(r.code, 1);
    const s = JSON.parse(r.stdout) as JobSummary;
    assert.deepEqual(s.errorsByPhase, { setup: 0, actor: 0, verifier: 2 });
    assert.equal(s.errored, 2);
    const [failing, fine] = s.tasks;
    assert.deepEqual([failing!.passed, failing!.passAtK, failing!.meanReward], [0, 0, 0]);
    assert.deepEqual([fine!.passed, fine!.passAt1, fine!.meanReward], [2, 1, 0.5]);
    assert.equal(s.meanReward, 0.25, 'errored runs count as 0');
  });

  test('human summary and a file that cannot load', async () => {
    const dir = scratchDir('hs-eval-');
    const broken = join(scratchDir('hs-broken-'), 'env.py');
    writeFileSync(broken, 'from hud import Environment\nenv = Environment("e")\n\nx = (\n');
    const r = await cli([
      'eval',
      FIXTURES.sameEnv,
      broken,
      '--answer',
      'secret',
      '--runtime',
      'local',
      '--trace-dir',
      dir,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /1 runs: 1 completed, 0 errored, 0 cancelled/);
    assert.match(r.stdout, /mean reward 1.00/);
    assert.match(r.stdout, new RegExp(`! ${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*env.py:\\d+`));
    assert.match(r.stdout, /errors by phase: setup 1, actor 0, verifier 0/);
    assert.match(r.stderr, /1\/1 done/, 'progress goes to stderr');
    for (const line of r.stdout.split('\n'))
      assert.ok((line.match(/pass@1/g) ?? []).length <= 1, `pass@1 twice: ${line}`);
  });

  test('a Harbor task directory among the paths runs as a Harbor trial (Docker)', async () => {
    const harborTask = join(__dirname, '..', '..', 'fixtures', 'harbor', 'shared-basic');
    const r = await cli([
      'eval',
      harborTask,
      '--agent',
      'oracle',
      '--group',
      '2',
      '--trace-dir',
      scratchDir('eval-harbor-'),
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as JobSummary;
    assert.deepEqual(
      s.tasks.map((t) => [t.ref, t.runs.length, t.meanReward]),
      [[harborTask, 2, 1]],
    );
    assert.equal(s.passAtK, 1);
  });
});
