/**
 * A list, tuple or Taskset that names a task (`suite = [task, ...]`) holds
 * that very Task object: discovery lists it under both references, and a
 * verifier set through either name is the other's too. Each module here is
 * also run by the bundled runtime's discovery, which must find the same.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agrees, discover, discovered, indexed, VERIFIABLE_ENV } from './discovery';
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

test('a name a compound statement may rebind is listed neither before nor after it, and is no error', async () => {
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
  // Discovery's `task` is check's: listing the solve() it held before the `if` would name the wrong template.
  const { rows, problems } = await indexed(source);
  assert.deepEqual(rows, []);
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

test('displays joined with + are one list, and anything else added to a list is not followed', async () => {
  const { rows } = await agrees(
    VERIFIABLE_ENV +
      py`
        task = solve(level=9)
        suite = [solve(level=1)] + [solve(level=n) for n in (2, 3)] + [task]
        suite[2].verifier = check(expected="three")
        pair = (check(expected="a"),) + (
            check(expected="b"),
        )
        # A tuple that only starts with a bracket is no sum, and is read as before.
        mixed = [solve(level=5)], check(expected="d")
      `,
  );
  assert.deepEqual(
    rows.map((r) => [r.ref, r.verifier]),
    [
      ['task', null],
      ['suite[0]', null],
      ['suite[1]', null],
      ['suite[2]', 'check'],
      ['suite[3]', null],
      ['pair[0]', null],
      ['pair[1]', null],
      ['mixed[1]', null],
    ],
  );
  // A length that needs the module to run, or a list times a number: the runtime finds these, the index does
  // not follow them (server/README.md) and lists nothing rather than a guess.
  const unknown =
    VERIFIABLE_ENV +
    py`
      LEVELS = [1, 2]
      LEVELS.append(3)
      more = [solve(level=1)] + [solve(level=n) for n in LEVELS]
      twice = [solve(level=1)] * 2
    `;
  assert.deepEqual(
    discovered(unknown).map((r) => r.ref),
    ['more[0]', 'more[1]', 'more[2]', 'more[3]', 'twice[0]', 'twice[1]'],
  );
  assert.deepEqual((await indexed(unknown)).rows, []);
  // A list and a tuple do not add up: the module stops importing, and the index lists nothing for it.
  const mixed =
    VERIFIABLE_ENV +
    py`
    mixed = [solve(level=1)] + (solve(level=2),)
  `;
  assert.match(discover(mixed).error?.message ?? '', /TypeError: can only concatenate list/);
  assert.deepEqual((await indexed(mixed)).rows, []);
});

test("b = a is a second name for a's Task: verifiers through either, lists naming it, a again later", async () => {
  const { rows, problems } = await agrees(
    VERIFIABLE_ENV +
      py`
        a = solve(level=1)
        b = a
        b.verifier = check(expected="x")
        c = d = b
        a = solve(level=2)
        suite = [c, audit(expected="y")]
        unknown = some_name = None
        other = unknown
      `,
  );
  assert.deepEqual(
    rows.map((r) => [r.ref, r.verifier]),
    [
      ['b', 'check'],
      ['c', 'check'],
      ['d', 'check'],
      ['a', null],
      ['suite[0]', 'check'],
      ['suite[1]', null],
    ],
  );
  // One Task under four public names (`a` holds another by the end): `hud eval` of this file stops, as the index says.
  assert.equal(problems.filter((p) => p.code === 'task-duplicate-slug').length, 3, JSON.stringify(problems));
});
