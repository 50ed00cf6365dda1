/**
 * The grader workbench on a real Docker engine (docs/grader-workbench.md):
 * stored rollouts regraded after a grader change, golden rows that break,
 * and the sanity check on gameable and sound graders.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import type { RegradeJson } from '../../../client/src/cli/regrade';
import type { SanityJson } from '../../../client/src/cli/sanity';
import { readGolden } from '../../../client/src/engine/golden/file';
import { runGoldenRow } from '../../../client/src/engine/golden/run';
import { runTask } from '../../../client/src/engine/runTask';
import { goldenReport } from '../../../client/src/goldenReport';
import { readTrace } from '../../../client/src/engine/trace/store';
import { REPO_ROOT, cli } from '../cli/cliHarness';
import { dockerReady, tempDir } from '../docker/support';

const FIXTURES = join(__dirname, 'fixtures');

before(dockerReady);

/** A copy of a fixture folder in a fresh temporary workspace; returns the workspace. */
function workspace(fixture: string): string {
  const dir = tempDir(`regrade-${fixture}`);
  cpSync(join(FIXTURES, fixture), join(dir, fixture), { recursive: true });
  return dir;
}

function edit(file: string, from: string, to: string): void {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.includes(from), `${file} contains ${from}`);
  writeFileSync(file, text.replace(from, to));
}

async function store(
  cwd: string,
  ref: string,
  answer: string,
  runtime = 'docker',
  traceDir = 'traces',
): Promise<string> {
  const done = await runTask(
    {
      ref,
      cwd,
      runtime,
      agent: { instance: new FixedAgent(answer) },
      consent: { serviceAccess: false, sharedSecrets: false },
      traceDir,
    },
    {},
  );
  assert.equal(done.status, 'completed', done.error?.message);
  assert.ok(done.tracePath);
  return done.rolloutId;
}

const RUNTIMES = ['docker', 'local'] as const;

describe('regrade', () => {
  for (const runtime of RUNTIMES) {
    test(`${runtime}: a changed grader regrades stored runs: new rewards, deltas by subscore, linked traces`, async () => {
      const cwd = workspace('graded');
      const many = await store(cwd, 'graded/env.py', 'apple apple apple', runtime);
      const one = await store(cwd, 'graded/env.py', 'apple', runtime);
      edit(join(cwd, 'graded', 'env.py'), 'hits >= 3', 'hits >= 1');

      const r = await cli(['regrade', 'graded/env.py', '--traces', 'traces', '--runtime', runtime, '--json'], cwd);
      assert.equal(r.code, 0, r.stderr);
      const json = JSON.parse(r.stdout) as RegradeJson;
      const byOf = new Map(json.rollouts.map((x) => [x.of, x]));
      assert.equal(json.rollouts.length, 2);
      const up = byOf.get(one)!;
      assert.deepEqual([up.before, up.after, up.direction], [0.4, 1, 'up']);
      assert.deepEqual(up.subscores, [{ name: 'enough', before: 0, after: 1 }]);
      assert.equal(up.stale, true, 'the template source changed since the run');
      const same = byOf.get(many)!;
      assert.deepEqual([same.before, same.after, same.direction, same.subscores], [1, 1, 'unchanged', []]);
      assert.deepEqual(json.summary, {
        total: 2,
        up: 1,
        down: 0,
        unchanged: 1,
        failed: 0,
        meanBefore: 0.7,
        meanAfter: 1,
      });

      const regraded = readTrace(up.trace!);
      assert.equal(regraded.regrade?.of, one);
      assert.equal(regraded.regrade?.graderHash, regraded.task.sourceHash);
      assert.notEqual(regraded.task.sourceHash, readTrace(up.storedTrace).task.sourceHash);
      assert.equal(regraded.agent.kind, 'regrade');
      assert.equal(regraded.answer, 'apple');
      assert.deepEqual(
        regraded.phases.map((p) => [p.name, p.substrate?.provider]),
        [['actor', runtime]],
      );

      const text = await cli(['regrade', 'graded/env.py', '--traces', 'traces', '--runtime', runtime], cwd);
      assert.match(text.stdout, /0\.40 -> 1\.00 {2}up/);
      assert.match(text.stdout, /enough 0\.00 -> 1\.00/);
      assert.match(text.stdout, /2 rollouts: 1 up, 0 down, 1 unchanged; mean 0\.70 -> 1\.00/);
    });

    test(`${runtime}: with a verifier, only the verifier runs again, on the actor result frame the rollout recorded`, async () => {
      const cwd = workspace('judged');
      const env = join(cwd, 'judged', 'env.py');
      const id = await store(cwd, 'judged/env.py', 'secret', runtime);
      // A second stored rollout, kept apart until the batch below.
      const other = await store(cwd, 'judged/env.py', 'hidden', runtime, 'later');
      const stored = readTrace(storedPath(cwd, 'traces', id));
      const received = stored.result?.info['received'];
      assert.equal((stored.actorResult as { answer?: unknown } | undefined)?.answer, 'secret');
      assert.deepEqual(received, stored.actorResult, 'the verifier got the actor result frame in the rollout');

      // The actor would now answer differently: a regrade that ran it again would fail the verifier.
      edit(env, '"answer": answer', '"answer": "tampered"');
      const same = await regradeJson(cwd, runtime);
      assert.deepEqual(
        same.rollouts.map((x) => [x.of, x.before, x.after, x.direction, x.stale, x.error]),
        [[id, 1, 1, 'unchanged', true, null]],
      );
      const t = readTrace(same.rollouts[0]!.trace!);
      assert.deepEqual(
        t.phases.map((p) => [p.name, p.reused, p.substrate?.provider]),
        [['verifier', false, runtime]],
      );
      assert.deepEqual(t.result?.info['received'], received, 'the regrade gave the verifier the same input');
      assert.deepEqual(t.actorResult, stored.actorResult);
      assert.equal(t.answer, 'secret');
      assert.equal(t.regrade?.of, id);
      assert.equal(t.regrade?.graderHash, t.verifier?.sourceHash);
      assert.equal(t.regrade?.graderHash, stored.verifier?.sourceHash, 'the verifier itself did not change yet');

      // Both stored rollouts at once (the task is discovered once for the two): one down, one up.
      edit(env, '== "secret"', '== "hidden"');
      const later = storedPath(cwd, 'later', other);
      cpSync(later, join(cwd, 'traces', basename(later)));
      const both = await regradeJson(cwd, runtime);
      assert.deepEqual(
        both.rollouts.map((x) => [x.of, x.before, x.after, x.direction, x.stale]).sort(),
        [
          [id, 1, 0, 'down', true],
          [other, 0, 1, 'up', true],
        ].sort(),
      );
      assert.deepEqual(
        [both.summary.up, both.summary.down, both.summary.meanBefore, both.summary.meanAfter],
        [1, 1, 0.5, 0.5],
      );
      for (const row of both.rollouts) {
        const changed = readTrace(row.trace!);
        assert.deepEqual(
          changed.phases.map((p) => p.name),
          ['verifier'],
        );
        assert.notEqual(changed.regrade?.graderHash, stored.verifier?.sourceHash);
        assert.equal(changed.regrade?.graderHash, changed.verifier?.sourceHash);
      }
    });
  }

  test('a rollout whose verifier was taken out since is graded by its actor on the recorded answer', async () => {
    const cwd = workspace('judged');
    const env = join(cwd, 'judged', 'env.py');
    const id = await store(cwd, 'judged/env.py', 'secret', 'local');
    edit(env, 'task.verifier = verify()', '');
    edit(env, '{"score": 0.0, "answer": answer', '{"score": 0.5, "answer": answer');
    const json = await regradeJson(cwd, 'local');
    assert.deepEqual(
      json.rollouts.map((x) => [x.of, x.before, x.after, x.direction, x.error]),
      [[id, 1, 0.5, 'down', null]],
    );
    const t = readTrace(json.rollouts[0]!.trace!);
    assert.deepEqual(
      t.phases.map((p) => p.name),
      ['actor'],
    );
    assert.equal(t.verifier, null);
  });
});

async function regradeJson(cwd: string, runtime: string): Promise<RegradeJson> {
  const r = await cli(['regrade', 'judged/env.py::task', '--traces', 'traces', '--runtime', runtime, '--json'], cwd);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout) as RegradeJson;
}

function storedPath(cwd: string, dir: string, rolloutId: string): string {
  const name = readdirSync(join(cwd, dir)).find((f) => f.endsWith(`${rolloutId.slice(0, 8)}.hudtrace.json`));
  assert.ok(name, `a trace of ${rolloutId} in ${cwd}/${dir}`);
  return join(cwd, dir, name);
}

describe('golden answers', () => {
  test('check --golden passes, then fails after a grader change, showing both rewards and the subscore', async () => {
    const cwd = workspace('graded');
    const ok = await cli(['check', '--golden', 'graded', '--runtime', 'docker'], cwd);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stderr, /3 passed, 0 failed/);

    edit(join(cwd, 'graded', 'env.py'), 'hits >= 3', 'hits >= 4');
    const bad = await cli(['check', '--golden', 'graded/env.py', '--runtime', 'docker'], cwd);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stdout,
      /env\.golden\.jsonl:1 task FAIL reward 0\.40, expected == 1 \(enough 0\.00, expected == 1\)/,
    );
    assert.match(bad.stdout, /subscores: enough 0\.00, tidy 1\.00/);
    assert.match(bad.stderr, /2 passed, 1 failed/);
  });

  test("the Testing item's report after a grader change: failed, both rewards, the subscore that moved", async () => {
    const cwd = workspace('graded');
    const file = readGolden(join(cwd, 'graded', 'env.golden.jsonl'));
    const row = file.rows.find((r) => r.line === 1)!;
    const opts = { cwd, runtime: 'docker' };
    assert.deepEqual(goldenReport(await runGoldenRow(file, row, opts)), {
      verdict: 'passed',
      message: 'reward 1.00, expected == 1',
    });
    edit(join(cwd, 'graded', 'env.py'), 'hits >= 3', 'hits >= 4');
    const after = goldenReport(await runGoldenRow(file, row, opts));
    assert.deepEqual(after, {
      verdict: 'failed',
      message: 'reward 0.40, expected == 1; enough 0.00, expected == 1',
      expected: 'reward == 1\nenough == 1',
      actual: 'reward 0.40\nenough 0.00\ntidy 1.00',
    });
  });
});

describe('Harbor golden solutions', () => {
  test('good scores 1 and bad 0; a loosened test.sh lets a known-bad solution through, and check --golden says so', async () => {
    const cwd = workspace('harbor-greeting');
    const ok = await cli(['check', '--golden', 'harbor-greeting', '--json'], cwd);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const rows = JSON.parse(ok.stdout) as { task: string; passed: boolean; reward: number; expected: string }[];
    assert.deepEqual(
      rows.map((r) => [r.task, r.passed, r.reward, r.expected]),
      [
        ['good/exact', true, 1, '== 1'],
        ['bad/nothing', true, 0, '== 0'],
        ['bad/shouted', true, 0, '< 0.5'],
      ],
    );

    // The grader regresses: any greeting file now passes.
    edit(join(cwd, 'harbor-greeting', 'tests', 'test.sh'), '= "hello, harbor"', '!= ""');
    const bad = await cli(['check', '--golden', 'harbor-greeting/task.toml'], cwd);
    assert.equal(bad.code, 1, bad.stdout + bad.stderr);
    assert.match(bad.stdout, /golden\/bad\/shouted\/solve\.sh:1 bad\/shouted FAIL reward 1\.00, expected < 0\.5/);
    assert.match(bad.stdout, /golden\/bad\/nothing\/solve\.sh:1 bad\/nothing ok reward 0\.00/);
    assert.match(bad.stderr, /2 passed, 1 failed/);
    assert.ok(!existsSync(join(cwd, '.hud-studio')), 'golden runs leave no traces behind');
  });
});

describe('sanity check', () => {
  test('flags the grader that pays an empty answer and the one that pays the echoed prompt; passes the sound one', async () => {
    const cwd = workspace('sanity');
    const r = await cli(['sanity', 'sanity/env.py', '--runtime', 'docker', '--json'], cwd);
    assert.equal(r.code, 1, r.stderr);
    const rows = new Map((JSON.parse(r.stdout) as SanityJson[]).map((x) => [x.ref.split('::')[1], x]));
    const empty = rows.get('empty_pays')!;
    assert.equal(empty.sound, false);
    assert.ok(empty.gamedBy.some((g) => g.probe === 'empty' && g.answer === '' && g.reward === 1));
    assert.ok(empty.gamedBy.some((g) => g.probe === 'nop'));
    const echo = rows.get('echo_pays')!;
    assert.equal(echo.sound, false);
    assert.ok(echo.gamedBy.some((g) => g.probe === 'echo' && g.answer.startsWith('Is Paris the capital')));
    assert.ok(!echo.gamedBy.some((g) => g.probe === 'empty'), 'an empty answer does not game the substring grader');
    const sound = rows.get('sound_task')!;
    assert.equal(sound.sound, true, JSON.stringify(sound));
    assert.deepEqual(sound.gamedBy, []);
    assert.ok(
      sound.probes.some((p) => p.answer === 'paris' && p.reward === 1),
      'the source shows the right answer',
    );
    assert.deepEqual(sound.golden, [{ line: 1, passed: true, reward: 1, expected: '== 1' }]);
    assert.ok(
      sound.probes.every((p) => p.error === null),
      JSON.stringify(sound.probes),
    );
  });

  // Its first version expected "secret", a word of its own prompt: the echoed prompt scored 0.2.
  test('the bundled example is sound: no answer built from its prompts and strings scores', async () => {
    const r = await cli(['sanity', join(REPO_ROOT, 'examples', 'secret-verifier'), '--runtime', 'local', '--json']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const [example] = JSON.parse(r.stdout) as SanityJson[];
    assert.equal(example?.sound, true, r.stdout);
    assert.ok(example.probes.length >= 4, 'the probes ran');
    assert.ok(
      example.probes.every((p) => p.error === null && p.reward === 0),
      JSON.stringify(example.probes),
    );
  });
});
