/**
 * A module-level name bound more than once: the index lists what the module
 * holds once it has run, which is what discovery finds. Each module here is
 * also executed by the bundled runtime (`python3 -m hud_studio.discover`),
 * and the index must list the same task references with the same templates
 * and verifiers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agrees, byRef, indexed, runtimeError, VERIFIABLE_ENV } from './discovery';
import { py } from './helpers';

test('a task bound twice is the last binding, with the verifier set after it', async () => {
  const source =
    VERIFIABLE_ENV +
    py`
      task = solve(level=1)
      task.verifier = check(expected="first")
      task = solve(level=2)
      task.verifier = audit(expected="second")
    `;
  const { rows, lines } = await agrees(source);
  assert.deepEqual(rows, [{ ref: 'task', templateId: 'solve', verifier: 'audit' }]);
  const lastLine = source.split('\n').findIndex((l) => l.startsWith('task = solve(level=2)'));
  assert.equal(lines['task'], lastLine, 'the task (and its CodeLens) sits on the binding that counts');
});

test('a verifier set before its task is bound again belongs to an object nobody discovers', async () => {
  const { rows } = await agrees(
    VERIFIABLE_ENV +
      py`
        task = solve(level=1)
        task.verifier = check(expected="lost")
        task = solve(level=2)
      `,
  );
  assert.deepEqual(rows, [{ ref: 'task', templateId: 'solve', verifier: null }]);
});

test('a verifier named by a variable is what the variable held there, not at the end', async () => {
  const { rows, problems } = await agrees(
    VERIFIABLE_ENV +
      py`
        grader = check(expected="a")
        task = solve(level=1)
        task.verifier = grader
        grader = audit(expected="b")
        other = solve(level=2)
        other.verifier = grader
      `,
  );
  assert.deepEqual(byRef(rows), [
    { ref: 'grader', templateId: 'audit', verifier: null },
    { ref: 'other', templateId: 'solve', verifier: 'audit' },
    { ref: 'task', templateId: 'solve', verifier: 'check' },
  ]);
  assert.deepEqual(
    problems.map((p) => p.code),
    [],
  );
});

test('a template call takes no verifier= keyword: the index links none and says why the import fails', async () => {
  const source =
    VERIFIABLE_ENV +
    py`
      task = solve(level=1, verifier=check(expected="a"))
    `;
  const { rows, problems } = await indexed(source);
  assert.deepEqual(rows, [{ ref: 'task', templateId: 'solve', verifier: null }]);
  assert.deepEqual(
    problems.map((p) => p.code),
    ['task-bad-args'],
  );
  assert.match(problems[0]!.message, /unexpected keyword argument "verifier".*`name\.verifier = \.\.\.`/);
  assert.equal(problems[0]!.fix, undefined, 'no rename to another parameter is offered');
  assert.match(runtimeError(source), /unexpected argument\(s\) 'verifier'/);
});

test('lists, Tasksets and plain values bound over tasks leave only the last binding', async () => {
  const { rows } = await agrees(
    VERIFIABLE_ENV +
      py`
        from hud import Taskset

        suite = [solve(level=1), solve(level=2)]
        suite = [solve(level=3)]
        single = solve(level=4)
        single = [solve(level=5), check(expected="x")]
        gone = solve(level=6)
        gone = None
        mod = solve(level=7)
        from os import path as mod
        fn = solve(level=8)
        def fn():
            return 1
        kept = Taskset("kept", [solve(level=9)])
      `,
  );
  assert.deepEqual(
    byRef(rows).map((r) => r.ref),
    ['kept[0]', 'single[0]', 'single[1]', 'suite[0]'],
  );
});

test("a = b = solve(): two names for one Task, so a verifier set through either is both names' verifier", async () => {
  const { rows, problems } = await agrees(
    VERIFIABLE_ENV +
      py`
        first = second = solve(level=1)
        second.verifier = check(expected="x")
        second = None
        third = fourth = solve(level=2)
        third.verifier = check(expected="y")
        fourth.verifier = audit(expected="z")
      `,
  );
  assert.deepEqual(byRef(rows), [
    { ref: 'first', templateId: 'solve', verifier: 'check' },
    { ref: 'fourth', templateId: 'solve', verifier: 'audit' },
    { ref: 'third', templateId: 'solve', verifier: 'audit' },
  ]);
  // One object under two public names: the SDK's `hud eval` of the file refuses the repeated slug.
  assert.deepEqual(
    problems.map((p) => [p.code, p.message.slice(0, 35)]),
    [['task-duplicate-slug', 'fourth is the same Task object as t']],
  );
});

test('a verifier set on a list fails the import, and the index says so', async () => {
  const source =
    VERIFIABLE_ENV +
    py`
      suite = [solve(level=1), solve(level=2)]
      suite.verifier = check(expected="x")
    `;
  const { problems } = await indexed(source);
  assert.deepEqual(
    problems.map((p) => p.code),
    ['verifier-on-list'],
  );
  assert.match(runtimeError(source), /'list' object has no attribute 'verifier'/);
});

test('the call of a task bound over still runs on import, so its bad arguments are still reported', async () => {
  const source =
    VERIFIABLE_ENV +
    py`
      task = solve(levels=1)
      task = solve(level=2)
      task.verifier = check(expect="x")
      task = solve(level=3)
    `;
  const { rows, problems } = await indexed(source);
  assert.deepEqual(rows, [{ ref: 'task', templateId: 'solve', verifier: null }]);
  const lines = source.split('\n');
  // Each call has two: the unknown keyword and the missing parameter.
  assert.deepEqual(
    problems.map((p) => [p.code, lines[p.range.start.line]]),
    [
      ['task-bad-args', 'task = solve(levels=1)'],
      ['task-bad-args', 'task = solve(levels=1)'],
      ['task-bad-args', 'task.verifier = check(expect="x")'],
      ['task-bad-args', 'task.verifier = check(expect="x")'],
    ],
  );
  assert.match(runtimeError(source), /unexpected argument\(s\) 'levels'/);
});

test('del unbinds: a task or list deleted at module level is nothing discovery finds, and bound again it is', async () => {
  const source =
    VERIFIABLE_ENV +
    py`
      task = solve(level=1)
      keep = solve(level=2)
      suite = [solve(level=3), solve(level=4)]
      del task, suite
      again = solve(level=5)
      del again
      again = solve(level=6)
    `;
  const found = await agrees(source);
  assert.deepEqual(
    byRef(found.rows).map((r) => r.ref),
    ['again', 'keep'],
  );
  // `del suite[0]` deletes an item, not the name: the list's order is then unknown, and it lists nothing.
  const item = await indexed(VERIFIABLE_ENV + 'suite = [solve(level=3), solve(level=4)]\ndel suite[0]\n');
  assert.deepEqual(item.rows, []);
});
