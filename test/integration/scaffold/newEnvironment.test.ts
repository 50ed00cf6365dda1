/**
 * "New Environment" writes something that works: the files pass `check`
 * with no finding, the HUD task and the task-file row reach reward 1 with the
 * right answer and less with a wrong one (local runtime), and the Harbor
 * skeleton scores 1 with its oracle and 0 with nop on a real Docker engine.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { before, describe, test } from 'node:test';
import { scaffoldFiles, invalidName } from '../../../client/src/scaffold';
import { cli } from '../cli/cliHarness';
import { scratchDir } from '../engine-local/rules';

interface RunJson {
  status: string;
  reward: number | null;
}

describe('the New Environment scaffold', () => {
  let dir: string;

  before(() => {
    dir = scratchDir('hs-scaffold-');
    for (const f of scaffoldFiles('capitals', ['hud', 'taskFile', 'harbor'])) {
      const p = join(dir, f.path);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, f.content);
      if (f.executable) chmodSync(p, 0o755);
    }
  });

  const run = async (...args: string[]): Promise<RunJson> => {
    const r = await cli(['run', ...args, '--trace-dir', join(dir, 'traces'), '--json'], dir);
    assert.notEqual(r.code, 2, r.stderr);
    return JSON.parse(r.stdout) as RunJson;
  };

  test('names are checked before anything is written', () => {
    assert.equal(invalidName('capitals'), undefined);
    for (const bad of ['', 'Capitals', '1st', 'a b', '../x', 'x'.repeat(64)]) assert.ok(invalidName(bad), bad);
    assert.throws(() => scaffoldFiles('../escape', ['hud']), /lowercase/);
  });

  test('check finds nothing to report', async () => {
    const r = await cli(['check', '--json'], dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // Not even verifier-args-in-actor-files: the answer key is in verifier-only/, not in env.py. The one
    // finding is the info that the Harbor skeleton's shared-mode verifier could be moved to separate mode.
    assert.deepEqual(
      (JSON.parse(r.stdout) as { code: string }[]).map((f) => f.code),
      ['harbor-shared-forgeable'],
    );
  });

  test('the answer key is withheld from the actor: only verifier substrates get verifier-only/', () => {
    const files = scaffoldFiles('capitals', ['hud', 'taskFile']).map((f) => f.path);
    assert.ok(files.includes('capitals/verifier-only/answers.json'));
    for (const f of scaffoldFiles('capitals', ['hud', 'taskFile'])) {
      if (!f.path.startsWith('capitals/verifier-only/')) assert.doesNotMatch(f.content, /paris|rome/i, f.path);
    }
  });

  test('the HUD task and the task-file row reach reward 1 only with the right answer (local runtime)', async () => {
    const right = await run('capitals/env.py::task', '--answer', 'Paris', '--runtime', 'local');
    assert.deepEqual([right.status, right.reward], ['completed', 1]);
    const wrong = await run('capitals/env.py::task', '--answer', 'Lyon', '--runtime', 'local');
    assert.equal(wrong.status, 'completed');
    assert.ok((wrong.reward ?? 1) < 1, `reward ${wrong.reward}`);
    const row = await run('capitals/tasks.jsonl::0', '--answer', 'rome', '--runtime', 'local');
    assert.equal(row.status, 'completed');
    assert.equal(row.reward, 1);
  });

  test('the Harbor skeleton scores 1 with its oracle and 0 with nop (Docker)', async () => {
    const oracle = await run('capitals/harbor/capitals', '--agent', 'oracle', '--runtime', 'docker');
    assert.deepEqual([oracle.status, oracle.reward], ['completed', 1]);
    const nop = await run('capitals/harbor/capitals', '--agent', 'nop', '--runtime', 'docker');
    assert.deepEqual([nop.status, nop.reward], ['completed', 0]);
  });
});
