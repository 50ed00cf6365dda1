/**
 * Verifiers set in a module-level loop (`for t in suite: t.verifier =
 * check(...)`): the index links each task the loop goes over, lists the
 * loop's target (which still holds the last task, as discovery sees), says
 * once what is wrong with the verifier, and warns that the target makes
 * `hud eval` see one slug twice. Each module the index follows is also run
 * by the bundled runtime's discovery, which must find the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { agrees, discover, indexed, inModules, listsOnly, rowsOf, VERIFIABLE_ENV } from './discovery';
import { py } from './helpers';

const env = (body: string) => VERIFIABLE_ENV + body;
const codes = (problems: { code: string }[]) => problems.map((p) => p.code);
/** A function of the module that gives every task of a list a verifier. */
const ATTACH =
  'def attach(tasks, expected="x"):\n    for t in tasks:\n        t.verifier = check(expected=expected)\n\n';

describe('verifiers set in a loop', () => {
  test('the tasks a list holds where the loop runs, not those an earlier binding of its name made', async () => {
    const found = await agrees(
      env(
        'suite = [check(expected="x"), check(expected="y")]\nsuite = [solve(level=1)]\nfor t in suite:\n    t.verifier = audit(expected="z")\n',
      ),
    );
    assert.deepEqual(found.rows.map((r) => [r.ref, r.templateId, r.verifier]).sort(), [
      ['suite[0]', 'solve', 'audit'],
      ['t', 'solve', 'audit'],
    ]);
  });

  test('over a list, a comprehension, names, and enumerate of a list', async () => {
    for (const body of [
      'suite = [solve(level=1), solve(level=2)]\nfor t in suite:\n    t.verifier = check(expected="a")\n',
      'suite = [solve(level=i) for i in range(3)]\nfor t in suite: t.verifier = audit(expected="x")\n',
      'a = solve(level=1)\nb = solve(level=2)\nfor t in (a, b):\n    t.verifier = check(expected="b")\n',
      'suite = [solve(level=1), solve(level=2)]\nfor i, t in enumerate(suite):\n    t.verifier = audit(expected=str(i))\n',
      // Two lines: the last one wins for every task.
      'suite = [solve(level=1), solve(level=2)]\nfor t in suite:\n    t.verifier = check(expected="a")\n    t.verifier = audit(expected="b")\n',
    ]) {
      const found = await agrees(env(body));
      const verified = found.rows.filter((r) => r.verifier !== null);
      assert.equal(verified.length, found.rows.length, body);
      assert.ok(
        found.rows.some((r) => r.ref === 't'),
        `the loop's target is listed: ${body}`,
      );
    }
  });

  test("the loop's target is a second reference to the last task: hud eval would stop, and the fix says how", async () => {
    const found = await agrees(
      env('suite = [solve(level=1), solve(level=2)]\nfor t in suite:\n    t.verifier = check(expected="a")\n'),
    );
    const slug = found.problems.filter((p) => p.code === 'task-duplicate-slug');
    assert.equal(slug.length, 1);
    assert.match(slug[0]!.message, /t is the same Task object as suite\[1\]/);
    assert.match(slug[0]!.message, /name it _t, or add `del t` after the loop/);
    assert.equal(slug[0]!.range.start.line, found.lines['t']);

    for (const fixed of [
      'suite = [solve(level=1), solve(level=2)]\nfor _t in suite:\n    _t.verifier = check(expected="a")\n',
      'suite = [solve(level=1), solve(level=2)]\nfor t in suite:\n    t.verifier = check(expected="a")\ndel t\n',
    ]) {
      const after = await agrees(env(fixed));
      assert.deepEqual(codes(after.problems), [], fixed);
      assert.equal(after.rows.filter((r) => r.ref.startsWith('suite')).length, 2);
    }
  });

  test('a wrong verifier call is reported once, not once per task', async () => {
    const found = await indexed(
      env(
        'suite = [solve(level=1), solve(level=2), solve(level=3)]\nfor _t in suite:\n    _t.verifier = check(expectd="a")\n',
      ),
    );
    const bad = found.problems.filter((p) => p.code === 'task-bad-args');
    assert.ok(bad.length > 0);
    const keys = bad.map((p) => `${p.range.start.line}:${p.range.start.character}:${p.message}`);
    assert.equal(new Set(keys).size, keys.length, keys.join('\n'));
    assert.deepEqual(
      codes(
        (
          await indexed(
            env('suite = [solve(level=1), solve(level=2)]\nfor _t in suite:\n    _t.verifier = nothere()\n'),
          )
        ).problems,
      ),
      ['verifier-unknown-template'],
    );
  });

  test('over a slice of a list or tuple by integer literals, as Python slices it', async () => {
    const suite = 'suite = [solve(level=1), solve(level=2), solve(level=3)]\n';
    for (const [body, verified] of [
      [`${suite}for t in suite[1:]:\n    t.verifier = check(expected="a")\n`, ['suite[1]', 'suite[2]', 't']],
      [`${suite}for t in suite[:-1]:\n    t.verifier = check(expected="a")\n`, ['suite[0]', 'suite[1]', 't']],
      [`${suite}for t in suite[::-2]:\n    t.verifier = check(expected="a")\n`, ['suite[0]', 'suite[2]', 't']],
      [`${suite}for t in suite[- 2 : 5 : 1]:\n    t.verifier = check(expected="a")\n`, ['suite[1]', 'suite[2]', 't']],
      [
        'pair = (solve(level=1), solve(level=2))\nfor t in pair[:1]:\n    t.verifier = check(expected="a")\n',
        ['pair[0]', 't'],
      ],
      // Past either end: the loop never runs, and binds nothing.
      [`${suite}for t in suite[5:]:\n    t.verifier = check(expected="a")\n`, []],
      [`${suite}for t in suite[-5::-1]:\n    t.verifier = check(expected="a")\n`, []],
    ] as const) {
      const found = await agrees(env(body));
      assert.deepEqual(
        found.rows
          .filter((r) => r.verifier !== null)
          .map((r) => r.ref)
          .sort(),
        verified,
        body,
      );
    }
  });

  test('what it cannot follow, it links nothing for and reports nothing about', async () => {
    for (const body of [
      // A target other than the loop's, a target naming the list, a value that may change it.
      'suite = [solve(level=1)]\nx = solve(level=2)\nfor _t in suite:\n    x.verifier = check(expected="a")\n',
      'suite = [solve(level=1)]\nfor suite in suite:\n    suite.verifier = check(expected="a")\n',
      'suite = [solve(level=1), solve(level=2)]\nfor _t in suite:\n    _t.verifier = pick(suite.pop())\n',
    ]) {
      const found = await indexed(env(body));
      // A loop binding `suite` leaves it holding what only running the module says; a pop reorders the list,
      // which then lists none of its elements.
      if (!body.includes('for suite') && !body.includes('pop'))
        assert.ok(
          found.rows.some((r) => r.ref.startsWith('suite[')),
          body,
        );
      for (const r of found.rows) assert.equal(r.verifier, null, body);
      assert.deepEqual(codes(found.problems), [], body);
    }
  });

  test("a statement it cannot read that may give the list's items a verifier: it lists none of them, not them unverified", async () => {
    for (const body of [
      // Another statement in the body, an item that is no task, a value it cannot read, an iterable it cannot
      // read, items set by index, an enumerate that is not the builtin.
      'suite = [solve(level=1)]\nfor _t in suite:\n    print(_t)\n    _t.verifier = check(expected="a")\n',
      'suite = [solve(level=1), solve]\nfor _t in suite:\n    _t.verifier = check(expected="a")\n',
      'suite = [solve(level=1)]\nfor _t in suite:\n    _t.verifier = check(expected="a") if _t else None\n',
      'suite = [solve(level=1), solve(level=2)]\nfor _t in sorted(suite, key=id):\n    _t.verifier = check(expected="a")\n',
      'suite = [solve(level=1), solve(level=2)]\nfor i in range(len(suite)):\n    suite[i].verifier = check(expected="a")\n',
      'def enumerate(s):\n    return s\nsuite = [solve(level=1)]\nfor _i, _t in enumerate(suite):\n    _t.verifier = check(expected="a")\n',
      // The list passed whole to a function of the module that sets verifiers.
      `${ATTACH}suite = [solve(level=1), solve(level=2)]\nattach(suite)\n`,
      `${ATTACH}suite = [solve(level=1), solve(level=2)]\nattach(tasks=suite, expected="b")\n`,
    ]) {
      const found = await indexed(env(body));
      assert.deepEqual(
        found.rows.filter((r) => r.ref.startsWith('suite[')),
        [],
        body,
      );
      assert.deepEqual(codes(found.problems), [], body);
    }
    // Passed to anything else, or such a function called without it: the list is still listed as it is.
    for (const body of [
      `${ATTACH}suite = [solve(level=1), solve(level=2)]\nprint(len(suite))\n`,
      `${ATTACH}suite = [solve(level=1), solve(level=2)]\nn = attach([]) or len(suite)\n`,
    ]) {
      const found = await agrees(env(body));
      assert.equal(found.rows.filter((r) => r.ref.startsWith('suite[')).length, 2, body);
    }
    // What discovery finds there: the items verified, which the index would have denied by listing them.
    const report = discover(
      env(
        'suite = [solve(level=1), solve(level=2)]\nfor i in range(len(suite)):\n    suite[i].verifier = check(expected="a")\n',
      ),
    );
    assert.deepEqual(
      rowsOf(report).map((r) => [r.ref, r.verifier]),
      [
        ['suite[0]', 'check'],
        ['suite[1]', 'check'],
      ],
    );
  });
});

test("a statement it cannot read that sets a known Task's verifier: that Task is listed under none of its names", async () => {
  const cases: [string, string[]][] = [
    // set on the name, under an `if`: the alias and the list item are the same Task
    [
      'import os\ntask = solve(level=1)\nb = task\nsuite = [task, solve(level=2)]\nif os.sep:\n' +
        '    task.verifier = check(expected="ok")\nelse:\n    task.verifier = audit(expected="no")\n',
      ['suite[1]'],
    ],
    // in a loop the index does not read
    [
      'a = solve(level=1)\nc = solve(level=2)\nfor n in range(2):\n    print(n)\n    a.verifier = check(expected="ok")\n',
      ['c'],
    ],
    // through a target it binds, or an item: any Task the statement mentions
    [
      'a = solve(level=1)\nb = solve(level=2)\nc = solve(level=3)\nfor t in sorted([a, b], key=id):\n' +
        '    t.verifier = check(expected="ok")\ndel t\n',
      ['c'],
    ],
    [
      'a = solve(level=1)\ntasks = []\nfor n in range(2):\n    tasks.append(a)\n    tasks[-1].verifier = check(expected="ok")\n',
      [],
    ],
    [
      'a = solve(level=1)\ntasks = [a]\nfor t in sorted(tasks, key=id):\n    t.verifier = check(expected="ok")\ndel t\n',
      [],
    ],
    // through a tuple holding it
    [
      'a = solve(level=1)\npair = (check(expected="t"), a)\nfor t in sorted(pair, key=id):\n' +
        '    t.verifier = audit(expected="ok")\ndel t\n',
      [],
    ],
    // one that only mentions the Task leaves it listed
    ['import os\ntask = solve(level=1)\nif os.sep:\n    print(task)\n', ['task']],
    // a Task left unlisted is still the verifier another line names
    [
      'import os\ntask = check(expected="v")\nif not os.sep:\n    task.verifier = check(expected="ok")\n' +
        'b = solve(level=2)\nb.verifier = task\n',
      ['b'],
    ],
    // a name a block the index does not read assigns holds what only running it tells, before and after
    [
      'import os\na = solve(level=1)\nif os.sep:\n    a = check(expected="x")\n' +
        'L = [solve(level=0)]\nfor t in L: t.verifier = audit(expected="w")\nx = print(L)\n' +
        'for x in range(1, 3):\n    t = solve(level=x)\nc = solve(level=3)\n',
      ['L[0]', 'c'],
    ],
    // a block that only mentions the name (`lambda *a`, `print(a)`) leaves it holding its Task, whose verifier a
    // later statement the index does not read may set: under an `if`, in a loop, or through a function
    ['import os\na = solve(level=1)\nif os.sep:\n    print(a)\nif os.sep:\n    a.verifier = check(expected="v")\n', []],
    [
      'import os\na = solve(level=1)\nb = solve(level=2)\nif os.sep:\n    f = lambda *a: [1]\n' +
        'for t in (a, b):\n    t.verifier = check(expected="v")\n',
      [],
    ],
    [
      'import os\ndef vset(t):\n    t.verifier = audit(expected="s")\n\na = solve(level=1)\nif os.sep:\n    print(a)\n' +
        'vset(a)\nc = solve(level=3)\n',
      ['c'],
    ],
    // a Task handed to a holder the index does not follow (a set, a dict, a tuple of a name it no longer
    // follows) is reached through it by a loop it does not read
    [
      'a = solve(level=1)\nb = solve(level=2)\nreg = set()\nreg.add(a)\nfor t in reg:\n' +
        '    t.verifier = check(expected="v")\ndel t\n',
      ['b'],
    ],
    [
      'a = solve(level=1)\nTASKS = {"x": a}\nfor t in TASKS.values():\n    t.verifier = check(expected="v")\ndel t\n',
      [],
    ],
    // a list's elements handed on, one or all of them
    [
      'suite = [solve(level=1), solve(level=2)]\nreg = set()\nreg.add(suite[0])\nfor t in reg:\n' +
        '    t.verifier = check(expected="v")\ndel t\n',
      [],
    ],
    [
      'suite = [solve(level=1), solve(level=2)]\nreg = []\nreg.extend(suite)\nfor t in reg:\n' +
        '    t.verifier = check(expected="v")\ndel t\n',
      [],
    ],
    [
      'import os\na = check(expected="q")\nif os.sep:\n    print(a)\nb = (a, check(expected="p"))\n' +
        'for t in sorted(b, key=id):\n    t.verifier = audit(expected="w")\ndel t\n',
      [],
    ],
  ];
  for (const [body, listed] of cases) await listsOnly(env(body), listed);
});

test('a list another name or holder may change: none of its items is listed, where a read leaves them', async () => {
  const TWO = 'tasks = [solve(level=1), check(expected="x")]\n';
  const cases: [string, string[]][] = [
    [`${TWO}other = tasks\nother.pop(0)\n`, []],
    [`${TWO}box = {"t": tasks}\nbox["t"].pop(0)\n`, []],
    [`${TWO}globals()["tasks"].pop(0)\n`, []],
    // reordered after a statement that made the index stop following it
    [`import os\n${TWO}print(tasks)\ntasks.reverse()\n`, []],
    [`def flip(ts):\n    ts.reverse()\n\n${TWO}print(tasks)\nflip(tasks)\n`, []],
    [`${TWO}print(tasks)\nfor t in sorted(tasks, key=id):\n    t.verifier = audit(expected="w")\n`, []],
    // passed to a function of the module whose body reorders or shrinks a list
    [`def drop_first(ts):\n    ts.pop(0)\n\n${TWO}drop_first(tasks)\n`, []],
    [`def drop_first(ts):\n    del ts[0]\n\n${TWO}x = drop_first(ts=tasks)\n`, []],
    [`def swap(ts):\n    ts[0], ts[1] = ts[1], ts[0]\n\n${TWO}swap(tasks)\n`, []],
    // a display holding the list whole, or holding such a display, reaches it through an item
    [`${TWO}pair = (tasks, 3)\npair[0].pop(0)\n`, []],
    [`${TWO}pair = (tasks, 3)\nx = pair[0]\nx.reverse()\n`, []],
    [`${TWO}more = [tasks]\nmore[0].sort(key=id)\n`, []],
    [`${TWO}c = tasks\ntasks = (c, 1)\ntasks[0].pop(0)\n`, []],
    [`${TWO}pair = (tasks, 3)\nmore = [pair, 1]\nfor t in more[0][0]:\n    t.verifier = audit(expected="w")\n`, []],
    // adding at its end, in a statement the index does not read or after one, leaves its items where they are
    [
      `${TWO}if tasks:\n    tasks.append(solve(level=3))\nprint(tasks)\ntasks += [check(expected="q")]\ntasks.extend([])\n`,
      ['tasks[0]', 'tasks[1]'],
    ],
    // bound again after: the new list is another
    [`${TWO}print(tasks)\ntasks = [check(expected="y")]\ntasks.reverse()\n`, []],
    // changing only the holder, binding it again or deleting it leaves the list listed
    [
      `${TWO}pair = [tasks]\npair.append(1)\npair += [2]\npair.pop()\npair = None\nprint(pair)\n` +
        'q = (tasks, 1)\nr = [q]\ndel q, r\nq = r = 0\nprint(q, r)\n',
      ['tasks[0]', 'tasks[1]'],
    ],
    // a name still holding an item (a loop's target) had its verifier through the item's index
    [`${TWO}for t in tasks:\n    t.verifier = audit(expected="v")\ntasks.sort(key=id)\n`, []],
    // reads: printed, measured, indexed, counted, iterated, named in prose, passed to a function that reads it
    [`def count(ts):\n    return len(ts)\n\n${TWO}n = count(tasks)\n`, ['tasks[0]', 'tasks[1]']],
    [
      `import os\n${TWO}if os.sep:\n    print(tasks, len(tasks), tasks[0], tasks.count(1), "all tasks")\n` +
        'for x in tasks:\n    print(x)\ndel x\n',
      ['tasks[0]', 'tasks[1]'],
    ],
  ];
  for (const [body, listed] of cases) await listsOnly(env(body), listed);
});

test('names too long for a pattern (tens of thousands of characters) are followed as any other', async () => {
  const VALL = 'def vall(ts):\n    for t in ts:\n        t.verifier = check(expected="r")\n\n';
  const long = `h${'x'.repeat(60_000)}`;
  await listsOnly(
    env(`${VALL}tasks = [solve(level=1)]\n${long} = (tasks, 1)\n${long}[0].pop()\nb = solve(level=2)\nvall([b])\n`),
    [],
  );
  await listsOnly(env(`tasks = [solve(level=1)]\n${long} = [tasks, 1]\n${long}.append(2)\n`), ['tasks[0]']);
});

test('a Task passed whole to a function of the module that sets verifiers is listed under none of its names', async () => {
  const WITH_CHECK = 'def with_check(t):\n    t.verifier = check(expected="ok")\n    return t\n\n';
  const VALL = 'def vall(ts):\n    for t in ts:\n        t.verifier = check(expected="r")\n\n';
  const cases: [string, string[]][] = [
    [
      `${WITH_CHECK}easy = solve(level=1)\nalias = easy\nsuite = [easy]\nwith_check(easy)\nhard = solve(level=2)\n`,
      ['hard'],
    ],
    [`${WITH_CHECK}easy = solve(level=1)\nx = with_check(t=easy)\n`, []],
    // a tuple of Tasks passed to a function that sets the verifier of each
    [
      'def each(ts):\n    for t in ts:\n        t.verifier = check(expected="ok")\n\n' +
        'a = solve(level=1)\npair = (a, solve(level=2))\neach(pair)\nc = solve(level=3)\n',
      ['c'],
    ],
    // a holder the Task was handed to, or a display holding it, passed to a function that sets the verifier of
    // each: a Task never handed to it stays listed
    [`${VALL}a = solve(level=1)\nc = solve(level=3)\nreg = set()\nr = reg\nr.add(a)\nprint(c)\nvall(reg)\n`, ['c']],
    [`${VALL}a = solve(level=1)\nbox = {"k": a}\nvall(ts=box.values())\n`, []],
    [`${VALL}a = solve(level=1)\nvall([a])\n`, []],
    [`${VALL}a = solve(level=1)\nvall(list((a,)))\nb = solve(level=2)\n`, ['b']],
    // only mentioned, or passed to a function that sets none: still listed
    [`${WITH_CHECK}easy = solve(level=1)\nprint(easy)\nn = len([easy])\n`, ['easy']],
    // the function is the decorated `def`, not a `def` or `class` written in its decorator's string
    [
      'def tagged(note):\n    return lambda f: f\n\n' +
        `@tagged("def other(ts), class Other")\n${VALL}a = solve(level=1)\nvall([a])\nb = solve(level=2)\n`,
      ['b'],
    ],
  ];
  for (const [body, listed] of cases) await listsOnly(env(body), listed);
});

test('a function that hands Tasks to a holder counts from the first statement that may call it, a class body at once', async () => {
  const VALL = 'def vall(ts):\n    for t in ts:\n        t.verifier = check(expected="r")\n\n';
  const FILL = 'def fill():\n    reg.add(a)\n\n';
  const cases: [string, string[]][] = [
    // called before the holder is passed: `a` may be in it
    [`${VALL}${FILL}a = solve(level=1)\nreg = set()\nfill()\nvall(reg)\n`, []],
    // called through another function
    [`${VALL}${FILL}def setup():\n    fill()\n\na = solve(level=1)\nreg = set()\nsetup()\nvall(reg)\n`, []],
    // never called, or only after: its body has not run when the holder is passed
    [`${VALL}${FILL}a = solve(level=1)\nreg = set()\nvall(reg)\n`, ['a']],
    [`${VALL}${FILL}a = solve(level=1)\nreg = set()\nvall(reg)\nfill()\n`, ['a']],
    // a class body runs where the class is defined
    [`${VALL}a = solve(level=1)\nreg = set()\nclass Setup:\n    reg.add(a)\n\nvall(reg)\n`, []],
  ];
  for (const [body, listed] of cases) await listsOnly(env(body), listed);
});

test('a list passed whole to a function of another module that sets verifiers: none of its items is listed', async () => {
  const files = {
    'env.py': VERIFIABLE_ENV,
    'helpers.py': py`
      def attach(tasks, make, expected="x"):
          for t in tasks:
              t.verifier = make(expected=expected)


      def count(tasks):
          return len(tasks)


      def attach_one(task, make):
          task.verifier = make(expected="y")
    `,
    'tasks.py': py`
      import helpers
      from env import check, solve
      from helpers import attach, attach_one, count

      verified = [solve(level=1), solve(level=2)]
      attach(verified, check)
      dotted = [solve(level=3)]
      helpers.attach(tasks=dotted, make=check)
      counted = [solve(level=4)]
      count(counted)
      single = solve(level=5)
      attach_one(single, check)
      held = solve(level=6)
      box = set()
      box.add(held)
      helpers.attach(box, check)
    `,
  };
  await inModules(files, 'tasks.py', ({ ws, rows, discovered, edit }) => {
    // Discovery gives the passed items the verifier; the index, which cannot run attach, lists none of them.
    assert.deepEqual(
      discovered().map((r) => [r.ref, r.verifier]),
      [
        ['counted[0]', null],
        ['dotted[0]', 'check'],
        ['held', 'check'],
        ['single', 'check'],
        ['verified[0]', 'check'],
        ['verified[1]', 'check'],
      ],
    );
    assert.deepEqual(
      rows().map((r) => [r.ref, r.verifier]),
      [['counted[0]', null]],
    );
    assert.deepEqual(ws.problems('tasks.py'), []);
    // An edit of the other module reaches the lists passed to it: attach no longer sets verifiers.
    edit(
      'helpers.py',
      files['helpers.py']
        .replace('t.verifier = make(expected=expected)', 'print(t, make, expected)')
        .replace('task.verifier = make(expected="y")', 'print(task, make)'),
    );
    assert.deepEqual(rows(), discovered());
    assert.equal(rows().length, 6);
  });
});
