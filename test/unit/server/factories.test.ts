/**
 * Functions that make a task (`def make(level): t = solve(level=level);
 * t.verifier = check(...); return t`): each call below the `def` is a task
 * of its own, of the template the body calls, with the verifier the body
 * sets. Each module the index follows is also run by the bundled runtime's
 * discovery, which must find the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agrees, indexed, inModules, indexesNothing, taskTriples, VERIFIABLE_ENV } from './discovery';
import { py } from './helpers';

const env = (body: string) => VERIFIABLE_ENV + body;

const MAKE = [
  'def make(level):',
  '    """A task of the given level."""',
  '    t = solve(level=level)',
  '    t.verifier = check(expected=str(level))',
  '    return t',
  '',
  '',
].join('\n');

describe('task factories', () => {
  test('each call is a task with the verifier the body sets, which a later assignment replaces', async () => {
    const found = await agrees(
      env(
        `${MAKE}easy = make(1)\nhard = make(5)\nhard.verifier = audit(expected="h")\nsuite = [make(n) for n in range(2)]\n`,
      ),
    );
    assert.deepEqual(taskTriples(found), [
      ['easy', 'solve', 'check'],
      ['hard', 'solve', 'audit'],
      ['suite[0]', 'solve', 'check'],
      ['suite[1]', 'solve', 'check'],
    ]);
    assert.deepEqual(found.problems, []);
    // The lens and the hover sit where the call is, not in the factory's body.
    const lines = env(`${MAKE}easy = make(1)\n`).split('\n');
    const easy = await indexed(env(`${MAKE}easy = make(1)\n`));
    assert.equal(lines[easy.lines['easy']!], 'easy = make(1)');
  });

  test('`return solve(...)`, a factory calling a factory, and a build loop over one', async () => {
    const found = await agrees(
      env(
        [
          'def plain(level):',
          '    return solve(level=level)',
          '',
          'def judged(level):',
          '    t = plain(level)',
          '    t.verifier = audit(expected="j")',
          '    return t',
          '',
          'tasks = []',
          'for n in range(2):',
          '    t = judged(n)',
          '    tasks.append(t)',
          'del t',
          'one = plain(3)',
          '',
        ].join('\n'),
      ),
    );
    assert.deepEqual(taskTriples(found), [
      ['one', 'solve', null],
      ['tasks[0]', 'solve', 'audit'],
      ['tasks[1]', 'solve', 'audit'],
    ]);
  });

  test("what is wrong in the body is said once, on the body's lines; the same arguments twice are one slug", async () => {
    const source = env(
      'def make():\n    t = solve(level=1, nope=2)\n    t.verifier = check(wrong=3)\n    return t\n\na = make()\nb = make()\n',
    );
    const found = await indexed(source);
    const lines = source.split('\n');
    const where = (code: string) =>
      found.problems.filter((p) => p.code === code).map((p) => lines[p.range.start.line]!.trim());
    assert.deepEqual(where('task-bad-args'), [
      't = solve(level=1, nope=2)',
      't.verifier = check(wrong=3)',
      't.verifier = check(wrong=3)',
    ]);
    assert.deepEqual(where('task-duplicate-slug'), ['b = make()']);
  });

  test('what is known only when the function runs is not read', async () => {
    for (const body of [
      // the verifier is the caller's
      'def make(v):\n    t = solve(level=1)\n    t.verifier = v\n    return t\n\nx = make(check(expected="a"))\n',
      // anything else in the body
      'def make(level):\n    if level:\n        return solve(level=level)\n    return solve(level=0)\n\nx = make(1)\n',
      // the name bound again
      'def make(level):\n    return solve(level=level)\n\ndef other(level):\n    return None\n\nmake = other\nx = make(1)\n',
      // defined again, as a function that makes nothing
      'def make(level):\n    return solve(level=level)\n\ndef make(level):\n    pass\n\nx = make(1)\n',
      // called above its def: NameError
      'x = make(1)\n\ndef make(level):\n    return solve(level=level)\n',
      // the verifier set before the task is made: UnboundLocalError
      'def make(level):\n    t.verifier = check(expected="a")\n    t = solve(level=level)\n    return t\n\nx = make(1)\n',
    ])
      await indexesNothing(env(body));
  });
});

test('a factory imported from another module: its calls are tasks with the template and verifier its body names', async () => {
  const files = {
    'env.py': VERIFIABLE_ENV,
    'helpers.py': py`
      from env import audit, check, solve

      def make(level):
          t = solve(level=level)
          t.verifier = check(expected=str(level))
          return t
    `,
    'tasks.py': py`
      import helpers
      from helpers import make

      easy = make(1)
      hard = helpers.make(5)
      hard.verifier = None
      suite = [make(n) for n in range(2)]
    `,
  };
  await inModules(files, 'tasks.py', ({ ws, rows, discovered, edit }) => {
    assert.deepEqual(rows(), discovered());
    assert.deepEqual(taskTriples({ rows: rows() }), [
      ['easy', 'solve', 'check'],
      ['hard', 'solve', null],
      ['suite[0]', 'solve', 'check'],
      ['suite[1]', 'solve', 'check'],
    ]);
    assert.deepEqual(ws.problems('tasks.py'), []);
    // An edit of the factory's module reaches the tasks its calls make.
    edit('helpers.py', files['helpers.py'].replace('check(expected', 'audit(expected'));
    assert.deepEqual(
      rows().map((r) => r.verifier),
      ['audit', null, 'audit', 'audit'],
    );
  });
});
