/**
 * Harbor regrade on a real Docker engine (docs/grader-workbench.md): a
 * separate-verifier trial is verified again from the artifacts its trial
 * folder kept, with the test script as it is now; a shared-mode trial is
 * refused with the reason, never crashed on.
 */
import { randomUUID } from 'node:crypto';
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RegradeJson } from '../../../client/src/cli/regrade';
import { runTask } from '../../../client/src/engine/runTask';
import { readTrace } from '../../../client/src/engine/trace/store';
import { cli } from '../cli/cliHarness';
import { dockerReady, tempDir } from '../docker/support';
import { HARBOR_FIXTURES, assertNothingLeft } from '../harbor/support';

before(dockerReady);

function workspace(fixture: string): string {
  const dir = tempDir(`regrade-harbor-${fixture}`);
  cpSync(join(HARBOR_FIXTURES, fixture), join(dir, fixture), { recursive: true });
  return dir;
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${file} contains ${from}`);
  writeFileSync(file, text.replace(from, to));
}

async function oracleTrial(cwd: string, ref: string): Promise<string> {
  // The id a job gives the run before it starts (RunContext.rolloutId) is the trial's too.
  const given = randomUUID();
  const done = await runTask(
    {
      ref,
      cwd,
      runtime: 'docker',
      agent: { choice: { agent: 'oracle' } },
      consent: { serviceAccess: false, sharedSecrets: false },
      traceDir: 'traces',
    },
    { rolloutId: given },
  );
  assert.equal(done.status, 'completed', done.error?.message);
  assert.equal(done.reward, 1);
  assert.equal(done.rolloutId, given);
  return done.rolloutId;
}

async function regrade(cwd: string, ref: string): Promise<{ code: number; json: RegradeJson }> {
  const r = await cli(['regrade', ref, '--traces', 'traces', '--runtime', 'docker', '--json'], cwd);
  return { code: r.code, json: JSON.parse(r.stdout) as RegradeJson };
}

describe('Harbor regrade', () => {
  test('a separate-verifier trial regrades from its stored artifacts with the changed test script', async () => {
    const cwd = workspace('separate-artifacts');
    const id = await oracleTrial(cwd, 'separate-artifacts');
    edit(join(cwd, 'separate-artifacts', 'tests', 'test.sh'), '= "42"', '= "43"');

    const { code, json } = await regrade(cwd, 'separate-artifacts');
    assert.equal(code, 0, JSON.stringify(json));
    assert.deepEqual(
      json.rollouts.map((x) => [x.of, x.before, x.after, x.direction, x.stale, x.error]),
      [[id, 1, 0, 'down', true, null]],
    );
    assert.deepEqual([json.summary.down, json.summary.meanBefore, json.summary.meanAfter], [1, 1, 0]);

    const t = readTrace(json.rollouts[0]!.trace!);
    assert.equal(t.regrade?.of, id);
    assert.equal(t.regrade?.graderHash, t.verifier?.sourceHash);
    assert.equal(t.agent.kind, 'regrade');
    assert.deepEqual(
      t.phases.map((p) => [p.name, p.reused, p.substrate?.provider]),
      [['verifier', false, 'docker']],
    );
    await assertNothingLeft(t.rolloutId);
    // The new trial folder holds what its verifier saw and said.
    const trial = t.harbor!.trialDir!;
    assert.equal(readFileSync(join(trial, 'artifacts', 'app', 'result.txt'), 'utf8').trim(), '42');
    assert.match(
      readFileSync(join(trial, 'verifier', 'test-stdout.txt'), 'utf8'),
      /declared artifact \/app\/result\.txt missing or wrong/,
    );
    assert.ok(!existsSync(join(trial, 'agent', 'oracle-note.txt')), 'no agent ran');
    const result = JSON.parse(readFileSync(join(trial, 'result.json'), 'utf8')) as {
      verifier_result: { rewards: Record<string, number> };
    };
    assert.deepEqual(result.verifier_result.rewards, { reward: 0 });

    // Back to what the artifacts satisfy: every other check of the script (isolation, /logs/artifacts) still passes.
    edit(join(cwd, 'separate-artifacts', 'tests', 'test.sh'), '= "43"', '= "42"');
    const again = await regrade(cwd, 'separate-artifacts');
    assert.deepEqual(
      again.json.rollouts.map((x) => [x.of, x.after, x.direction]),
      [[id, 1, 'unchanged']],
    );

    // Made shared since: said plainly, nothing started.
    edit(
      join(cwd, 'separate-artifacts', 'task.toml'),
      '[verifier.environment]\nworkdir = "/check"\nnetwork_mode = "no-network"\n',
      '',
    );
    const shared = await regrade(cwd, 'separate-artifacts');
    assert.equal(shared.code, 1);
    assert.match(shared.json.rollouts[0]!.error ?? '', /shared mode, inside the agent's container/);
  });

  test('a shared-mode trial is not regraded, and the row says why', async () => {
    const cwd = workspace('shared-basic');
    const id = await oracleTrial(cwd, 'shared-basic');
    const { code, json } = await regrade(cwd, 'shared-basic');
    assert.equal(code, 1);
    assert.deepEqual(
      json.rollouts.map((x) => [x.of, x.before, x.after, x.trace]),
      [[id, 1, null, null]],
    );
    assert.match(json.rollouts[0]!.error ?? '', /shared-mode Harbor trial .* agent's container/);
    assert.equal(json.summary.failed, 1);
  });
});
