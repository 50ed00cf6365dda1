/**
 * A list, tuple or Taskset that names a task (`suite = [task, ...]`) holds
 * that very Task object: discovery lists it under both references, and a
 * verifier set through either name is the other's too. Each module here is
 * also run by the bundled runtime's discovery, which must find the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agrees, discovered, indexed, VERIFIABLE_ENV } from './discovery';
import { py, workspace } from './helpers';

test('a list item naming a task is that task, under a second reference', async () => {
  const { rows, lines } = await agrees(
    VERIFIABLE_ENV +
      py`
        task = solve(level=1)
        suite = [task, solve(level=2)]
        pair = (check(expected="x"), task)
      `,
  );
  assert.deepEqual(
    rows.map((r) => r.ref),
    ['task', 'suite[0]', 'suite[1]', 'pair[0]', 'pair[1]'],
  );
  assert.notEqual(lines['suite[0]'], lines['task'], "the element's CodeLens sits on the list");
});

test("a verifier set through either name is both names' verifier", async () => {
  const { rows } = await agrees(
    VERIFIABLE_ENV +
      py`
        task = solve(level=1)
        other = solve(level=2)
        suite = [task, other]
        task.verifier = check(expected="one")
        suite[1].verifier = audit(expected="two")
      `,
  );
  assert.deepEqual(
    rows.map((r) => [r.ref, r.verifier]),
    [
      ['task', 'check'],
      ['other', 'audit'],
      ['suite[0]', 'check'],
      ['suite[1]', 'audit'],
    ],
  );
});

test('the object a name held when the list was made, whatever the name holds later', async () => {
  await agrees(
    VERIFIABLE_ENV +
      py`
        task = solve(level=1)
        task.verifier = check(expected="first")
        suite = [task]
        task = solve(level=2)
        suite[0].verifier = audit(expected="kept")
        kept = solve(level=3)
        group = [kept]
        group = None
        kept.verifier = check(expected="after")
      `,
  );
});

test('a name a compound statement may rebind first is not followed, and is no error', async () => {
  const source =
    VERIFIABLE_ENV +
    py`
      import os
      task = solve(level=1)
      if os.sep:
          task = check(expected="x")
      suite = [task]
    `;
  assert.deepEqual(
    discovered(source).map((r) => r.ref),
    ['task', 'suite[0]'],
  );
  const { rows, problems } = await indexed(source);
  assert.deepEqual(
    rows.map((r) => r.ref),
    ['task'],
  );
  assert.deepEqual(problems, []);
});

test("a call's argument problem is reported once, by whichever name still holds its Task", async () => {
  const ws = await workspace({
    'env.py':
      VERIFIABLE_ENV +
      py`
        task = solve(levl=1)
        suite = [task, task]
        a = b = solve(lvl=2)
        held = solve(lev=3)
        group = [held]
        held = None
      `,
  });
  const count = (word: string) => ws.problems('env.py').filter((p) => p.message.includes(`"${word}"`)).length;
  assert.deepEqual(
    ['levl', 'lvl', 'lev'].map(count),
    [1, 1, 1],
    JSON.stringify(ws.problems('env.py').map((p) => p.message)),
  );
});
