/**
 * One slug twice: the SDK keys tasksets by slug (template id + a hash of the
 * bound arguments), so a Taskset holding two fails the import, and `hud
 * eval` of a module whose public names hold two stops before running. The
 * index says so where it is certain. test/conformance/duplicateSlugs.test.ts
 * holds the same modules against the real SDK.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { indexed, runtimeError, VERIFIABLE_ENV } from './discovery';
import { py } from './helpers';

const TASKSET_ENV = VERIFIABLE_ENV.replace('from hud import Environment', 'from hud import Environment, Taskset');

/** The slug problems of `source`: [code, reference it sits on]. */
async function slugProblems(source: string): Promise<[string, string][]> {
  const { problems } = await indexed(source);
  return problems
    .filter((p) => p.code.endsWith('duplicate-slug'))
    .map((p) => [p.code, /^(\S+) is/.exec(p.message)?.[1] ?? p.message]);
}

test('one Task under two public references: through a list, a tuple, a chained assignment', async () => {
  assert.deepEqual(
    await slugProblems(
      VERIFIABLE_ENV +
        py`
          task = solve(level=1)
          suite = [task, solve(level=2)]
          pair = (check(expected="a"), check(expected="b"))
          a = b = audit(expected="c")
        `,
    ),
    [
      ['task-duplicate-slug', 'suite[0]'],
      ['task-duplicate-slug', 'b'],
    ],
  );
});

test('one template with the same literal arguments, however they are passed', async () => {
  assert.deepEqual(
    await slugProblems(
      VERIFIABLE_ENV +
        py`
          first = solve(3)
          second = solve(level=3)
          many = [check(expected="x") for _ in range(3)]
        `,
    ),
    [
      ['task-duplicate-slug', 'second'],
      ['task-duplicate-slug', 'many[1]'],
      ['task-duplicate-slug', 'many[2]'],
    ],
  );
});

test('different arguments, values not known, private names: no slug problem', async () => {
  assert.deepEqual(
    await slugProblems(
      VERIFIABLE_ENV +
        py`
          LEVEL = 1
          a = solve(level=1)
          b = solve(level=1.0)
          c = solve(level=True)
          d = solve(level=LEVEL)
          e = solve(level=LEVEL)
          _draft = solve(level=1)
          f = check(expected="1")
          g = audit(expected="1")
          levels = [solve(level=n) for n in (5, 6)]
        `,
    ),
    [],
  );
});

test('a Taskset holding one slug twice fails the import, which the runtime confirms', async () => {
  const source =
    TASKSET_ENV +
    py`
      task = solve(level=1)
      ts = Taskset("dup", [task, solve(level=1), solve(level=2)])
    `;
  assert.match(runtimeError(source), /duplicate task slugs/);
  assert.deepEqual(await slugProblems(source), [
    ['task-duplicate-slug', 'ts[0]'],
    ['taskset-duplicate-slug', 'ts[1]'],
  ]);
  const { problems } = await indexed(source);
  assert.equal(problems.find((p) => p.code === 'taskset-duplicate-slug')?.severity, 'error');
});

test('a module of more tasks than are compared pair by pair gets the same slug problems', async () => {
  // Past 64 tasks each is compared only with those of its Task object or its template and arguments.
  const bodies = [
    'task = solve(level=1)\nsuite = [task, solve(level=2)]\na = b = audit(expected="c")\n',
    'first = solve(3)\nsecond = solve(level=3)\nmany = [check(expected="x") for _ in range(3)]\n',
    'a = solve(level=1)\nb = solve(level=1.0)\nc = solve(level=True)\n_draft = solve(level=1)\nf = check(expected="1")\n',
    'task = solve(level=1)\nts = Taskset("dup", [task, solve(level=1), solve(level=2), task])\n',
  ];
  const padding = Array.from({ length: 70 }, (_, i) => `pad${i} = audit(expected="p${i}")\n`).join('');
  for (const body of bodies) {
    const few = await slugProblems(TASKSET_ENV + body);
    assert.ok(few.length > 0 || body.includes('_draft'), body);
    assert.deepEqual(await slugProblems(TASKSET_ENV + padding + body), few, body);
  }
  // A slug met again far from its first use, under either kind of sameness.
  assert.deepEqual(await slugProblems(TASKSET_ENV + padding + 'late = audit(expected="p3")\nagain = pad7\n'), [
    ['task-duplicate-slug', 'late'],
    ['task-duplicate-slug', 'again'],
  ]);
});
