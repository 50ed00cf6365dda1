/**
 * The loop that builds a taskset one task at a time (`for n in range(3):`
 * `t = solve(level=n)`, `t.verifier = check(...)`, `tasks.append(t)`): the
 * index lists each pass's task with its verifier, and the name the body
 * binds as discovery leaves it, holding the last one. Each module the index
 * follows is also run by the bundled runtime's discovery, which must find
 * the same; a loop it cannot follow lists nothing and reports nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agrees, indexed, indexesNothing, taskTriples, VERIFIABLE_ENV } from './discovery';

const env = (body: string) => VERIFIABLE_ENV + body;
const codes = (problems: { code: string }[]) => problems.map((p) => p.code);

describe('loops that build a taskset', () => {
  test("each pass's task, its verifier, and the name that holds the last one", async () => {
    const found = await agrees(
      env(
        'tasks = []\nfor n in range(1, 4):\n    t = solve(level=n)\n    t.verifier = check(expected=str(n))\n    tasks.append(t)\n',
      ),
    );
    assert.deepEqual(taskTriples(found), [
      ['t', 'solve', 'check'],
      ['tasks[0]', 'solve', 'check'],
      ['tasks[1]', 'solve', 'check'],
      ['tasks[2]', 'solve', 'check'],
    ]);
    // `hud eval` refuses the module (conformance/duplicateSlugs.test.ts): the warning says why and how to fix it.
    const slug = found.problems.filter((p) => p.code === 'task-duplicate-slug');
    assert.equal(slug.length, 1);
    assert.match(slug[0]!.message, /t is the same Task object as tasks\[2\]/);
    assert.match(slug[0]!.message, /name it _t, or add `del t` after the loop/);
  });

  test('two names, two lists, a verifier set after the append, and lists that held tasks before', async () => {
    const found = await agrees(
      env(
        [
          'tasks = [solve(level=0)]',
          'other = []',
          'for n in range(2):',
          '    label = str(n)',
          '    t = solve(level=n)',
          '    u = solve(level=n + 5)',
          '    u.verifier = audit(expected=label)',
          '    tasks.append(t)',
          '    other += [u, check(expected="x")]',
          '    t.verifier = check(expected="t")',
          'del t, u',
          'tasks.append(solve(level=9))',
          '',
        ].join('\n'),
      ),
    );
    assert.deepEqual(taskTriples(found), [
      ['other[0]', 'solve', 'audit'],
      ['other[1]', 'check', null],
      ['other[2]', 'solve', 'audit'],
      ['other[3]', 'check', null],
      ['tasks[0]', 'solve', null],
      ['tasks[1]', 'solve', 'check'],
      ['tasks[2]', 'solve', 'check'],
      ['tasks[3]', 'solve', null],
    ]);
    // check(expected="x") twice is one slug twice, and only that.
    assert.deepEqual(codes(found.problems), ['task-duplicate-slug']);
    assert.match(found.problems[0]!.message, /other\[3\] is the same template and arguments as other\[1\]/);
  });

  test("a name put in no list leaves the last pass's task; a loop that never runs leaves nothing", async () => {
    const kept = await agrees(
      env('for n in range(3):\n    t = solve(level=n)\n    t.verifier = check(expected="a")\n'),
    );
    assert.deepEqual(taskTriples(kept), [['t', 'solve', 'check']]);
    assert.deepEqual(kept.problems, []);

    const none = await agrees(env('tasks = []\nfor n in range(0):\n    t = solve(level=n)\n    tasks.append(t)\n'));
    assert.deepEqual(none.rows, []);
  });

  test('the name bound again after the loop holds that task instead', async () => {
    const found = await agrees(
      env('tasks = []\nfor n in range(2):\n    t = solve(level=n)\n    tasks.append(t)\nt = solve(level=7)\n'),
    );
    assert.deepEqual(taskTriples(found), [
      ['t', 'solve', null],
      ['tasks[0]', 'solve', null],
      ['tasks[1]', 'solve', null],
    ]);
    assert.deepEqual(found.problems, []);
  });

  test('a wrong verifier is said once, not once per pass', async () => {
    const found = await indexed(
      env(
        'tasks = []\nfor n in range(3):\n    t = solve(level=n)\n    t.verifier = audit(wrong=1)\n    tasks.append(t)\ndel t\n',
      ),
    );
    assert.equal(found.rows.length, 3);
    // Two things are wrong with the one call: each is said once.
    assert.deepEqual(
      found.problems.map((p) => [p.code, p.message.split(';')[0]]),
      [
        ['task-bad-args', 'audit() got an unexpected keyword argument "wrong"'],
        ['task-bad-args', 'audit() is missing the required argument "expected" (str) (fix: pass expected=...)'],
      ],
    );
  });

  test('a loop over nothing changes nothing; a loop read whole changes only the names it binds', async () => {
    const dead = await agrees(
      env(
        'x = solve(level=1)\ntasks = [solve(level=2)]\nfor n in range(0):\n    x = None\n    tasks.sort()\nsuite = [x]\ntasks.append(solve(level=3))\n',
      ),
    );
    assert.deepEqual(taskTriples(dead), [
      ['suite[0]', 'solve', null],
      ['tasks[0]', 'solve', null],
      ['tasks[1]', 'solve', null],
      ['x', 'solve', null],
    ]);
    // An `else` clause runs when the loop ends, even after no pass: not read as nothing.
    const orElse = await indexed(
      env('x = solve(level=1)\nfor n in range(0):\n    pass\nelse:\n    x = None\nsuite = [x]\n'),
    );
    assert.ok(!orElse.rows.some((r) => r.ref === 'suite[0]'), "x may hold None: suite's item is not a task it knows");
    // Its iterable names `a` and `b`, which still hold their tasks after it.
    const whole = await agrees(
      env(
        'a = solve(level=1)\nb = solve(level=2)\nfor t in (a, b):\n    t.verifier = check(expected="x")\ndel t\nboth = [a, b]\n',
      ),
    );
    assert.deepEqual(taskTriples(whole), [
      ['a', 'solve', 'check'],
      ['b', 'solve', 'check'],
      ['both[0]', 'solve', 'check'],
      ['both[1]', 'solve', 'check'],
    ]);
  });

  test("`tasks[-1].verifier = ...`: the verifier of the item the list's latest step appended", async () => {
    const appended = await agrees(
      env(
        'tasks = []\nfor n in range(3):\n    tasks.append(solve(level=n))\n    tasks[-1].verifier = check(expected=str(n))\n',
      ),
    );
    assert.deepEqual(taskTriples(appended), [
      ['tasks[0]', 'solve', 'check'],
      ['tasks[1]', 'solve', 'check'],
      ['tasks[2]', 'solve', 'check'],
    ]);
    assert.deepEqual(codes(appended.problems), []);
    // The later of two lines on one task wins, whichever way each names it; the item before the loop keeps none.
    const named = await agrees(
      env(
        'tasks = [solve(level=9)]\nfor n in range(2):\n    t = solve(level=n)\n    tasks.append(t)\n' +
          '    tasks[ -1 ].verifier = audit(expected="a")\n    t.verifier = check(expected="b")\ndel t\n',
      ),
    );
    assert.deepEqual(taskTriples(named), [
      ['tasks[0]', 'solve', null],
      ['tasks[1]', 'solve', 'check'],
      ['tasks[2]', 'solve', 'check'],
    ]);
    // Two appends a pass: the line follows the second, after an extend of two.
    const second = await agrees(
      env(
        'tasks = []\nfor n in range(2):\n    tasks.extend([solve(level=n), solve(level=n + 1)])\n' +
          '    tasks.append(solve(level=n + 10))\n    tasks[-1].verifier = check(expected="c")\n',
      ),
    );
    assert.deepEqual(
      taskTriples(second).map(([ref, , verifier]) => [ref, verifier]),
      [
        ['tasks[0]', null],
        ['tasks[1]', null],
        ['tasks[2]', 'check'],
        ['tasks[3]', null],
        ['tasks[4]', null],
        ['tasks[5]', 'check'],
      ],
    );
    // A wrong verifier call is said once for the loop.
    const wrong = await indexed(
      env(
        'tasks = []\nfor n in range(3):\n    tasks.append(solve(level=n))\n    tasks[-1].verifier = audit(wrong=1)\n',
      ),
    );
    assert.equal(wrong.rows.length, 3);
    assert.equal(codes(wrong.problems).filter((c) => c === 'task-bad-args').length, 2);
  });

  test('what the index cannot follow, it lists nothing of and says nothing about', async () => {
    for (const body of [
      // the same task put in the list twice
      'tasks = []\nfor n in range(2):\n    t = solve(level=n)\n    tasks.append(t)\n    tasks.append(t)\n',
      // used before the body binds it: the previous pass's task, or NameError
      'tasks = []\nt = None\nfor n in range(2):\n    tasks.append(t)\n    t = solve(level=n)\n',
      // an iterable the index cannot count
      'tasks = []\nfor n in sorted({1, 2}):\n    t = solve(level=n)\n    tasks.append(t)\n',
      // a value that may change a known list
      'tasks = []\nfor n in range(2):\n    t = solve(level=len(tasks))\n    tasks.append(t)\n',
      // a verifier set on the loop's target
      'tasks = []\nfor n in range(2):\n    t = solve(level=n)\n    n.verifier = check(expected="a")\n    tasks.append(t)\n',
      // `[-1]` before the pass appends: the previous pass's item, or on the first an IndexError
      'tasks = []\nfor n in range(2):\n    tasks[-1].verifier = check(expected="a")\n    tasks.append(solve(level=n))\n',
      // after an extend, or on a list the loop does not grow
      'tasks = []\nfor n in range(2):\n    tasks.extend([solve(level=n)])\n    tasks[-1].verifier = check(expected="a")\n',
      'other = []\ntasks = []\nfor n in range(2):\n    tasks.append(solve(level=n))\n    other[-1].verifier = check(expected="a")\n',
      // an item that is a name from outside the loop
      'a = solve(level=1)\ntasks = []\nfor n in range(2):\n    tasks.append(a)\n    tasks[-1].verifier = check(expected="a")\n',
    ])
      await indexesNothing(env(body));
  });

  test('prose that names the list is no mention of it, unless the module runs code from text', async () => {
    const loop =
      'tasks = []\nfor n in range(2):\n    t = solve(level=n)\n    t.verifier = check(expected="see the tasks")\n' +
      '    tasks.append(t)\n';
    assert.deepEqual(taskTriples(await agrees(env(loop))), [
      ['t', 'solve', 'check'],
      ['tasks[0]', 'solve', 'check'],
      ['tasks[1]', 'solve', 'check'],
    ]);
    // exec may run any string as code: prose is then read as a mention, and the loop as one the index cannot follow
    await indexesNothing(env(`${loop}exec("x = 1")\n`));
  });
});
