/**
 * Lists grown in place at module level (`tasks.append(...)`, `extend`,
 * `+=`, and `for` loops doing only that): the index lists what discovery
 * finds once the module has run, and where it cannot follow a list it adds
 * nothing to it and reports no error. Each module that the index follows is
 * also run by the bundled runtime's discovery, which must find the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { growingLoop, growthStep } from '../../../server/src/analysis/listGrowth';
import { codeLenses } from '../../../server/src/features/codeLens';
import { agrees, discovered, elementCounts, indexed, VERIFIABLE_ENV } from './discovery';
import { py, workspace } from './helpers';

const step = (text: string) => {
  const s = growthStep(text, 0, text.length);
  return s && { list: s.list, kind: s.kind, value: text.slice(s.value.start, s.value.end) };
};
const loop = (text: string) => {
  const l = growingLoop(text, { start: 0, end: text.length });
  return l && { targets: l.targets, iterable: text.slice(l.iterable.start, l.iterable.end), steps: l.steps.length };
};

describe('the shapes of growth', () => {
  test('append, extend and += of one list, as whole statements', () => {
    assert.deepEqual(step('tasks.append(solve(level=1))'), { list: 'tasks', kind: 'append', value: 'solve(level=1)' });
    assert.deepEqual(step('tasks .append( \n  solve(level=1),\n)'), undefined, 'a trailing comma is not followed');
    assert.deepEqual(step('tasks.extend([a, b])'), { list: 'tasks', kind: 'extend', value: '[a, b]' });
    assert.deepEqual(step('tasks += [a, b]'), { list: 'tasks', kind: 'extend', value: '[a, b]' });
    for (const text of [
      'tasks.append(a, b)',
      'tasks.append(*more)',
      'tasks.append()',
      'tasks.append(a).b',
      'tasks.insert(0, a)',
      'tasks.pop()',
      'tasks = [a]',
      'tasks -= [a]',
      'x.tasks.append(a)',
    ])
      assert.equal(step(text), undefined, text);
  });

  test('a for loop over names whose body only grows lists', () => {
    assert.deepEqual(loop('for n in range(3):\n    tasks.append(solve(level=n))\n'), {
      targets: ['n'],
      iterable: 'range(3)',
      steps: 1,
    });
    assert.deepEqual(loop('for a, b in ((1, 2),): x.append(a); y += [b]  # both\n'), {
      targets: ['a', 'b'],
      iterable: '((1, 2),)',
      steps: 2,
    });
    assert.deepEqual(loop('for w in WORDS[1:]:\n    # a comment\n\n    t.append(w)\n')?.iterable, 'WORDS[1:]');
    assert.deepEqual(loop('for w in("a", "b"):\n    t.append(w)\n')?.iterable, '("a", "b")');
    assert.equal(loop('for w in_list:\n    t.append(w)\n'), undefined);
    for (const text of [
      'for n in range(3):\n    tasks.append(n)\nelse:\n    tasks.append(0)\n',
      'for n in range(3):\n    if n:\n        tasks.append(n)\n',
      'for n in range(3):\n    print(n)\n    tasks.append(n)\n',
      'for (a, b) in pairs:\n    tasks.append(a)\n',
      'for t.x in pairs:\n    tasks.append(t)\n',
      'for n in range(3):\n    pass\n',
      'while True:\n    tasks.append(1)\n',
    ])
      assert.equal(loop(text), undefined, text);
  });
});

describe('lists grown in place, in the index', () => {
  test('appends, extends and loops, with verifiers set on their elements, as discovery finds them', async () => {
    const { rows, lines } = await agrees(
      VERIFIABLE_ENV +
        py`
          COUNT = 3
          tasks = []
          for n in range(COUNT):
              tasks.append(solve(level=n))
          tasks[1].verifier = check(expected="x")
          more = [solve(level=1)]
          more.append(solve(level=2))
          more += [check(expected="y")]
          more.extend([audit(expected=str(k)) for k in (1, 2)])
          for w in ("a", "b"): more.append(check(expected=w)); more.append(audit(expected=w))
          more[6].verifier = check(expected="q")
          grid = []
          for w in ("a", "b"):
              # one of each per word
              grid.append(check(expected=w))
              grid.extend((solve(level=len(w)), audit(expected=w)))
          again = [solve(level=7)]
          again.append(solve(level=8))
          again = [check(expected="new")]
          again.append(audit(expected="newer"))
          pair = both = [solve(level=9)]
          both.append(check(expected="p"))
          pair[1].verifier = audit(expected="q")
          both[0].verifier = check(expected="r")
        `,
    );
    const refs = (name: string) => rows.filter((r) => r.ref.startsWith(`${name}[`)).map((r) => r.ref);
    assert.equal(refs('tasks').length, 3);
    assert.equal(refs('more').length, 9);
    assert.equal(refs('grid').length, 6);
    assert.deepEqual(refs('again'), ['again[0]', 'again[1]']);
    assert.equal(rows.find((r) => r.ref === 'more[6]')?.verifier, 'check');
    // One list under two names: grown through one, its elements' verifiers set through either.
    assert.deepEqual(
      rows.filter((r) => /^(pair|both)\[/.test(r.ref)).map((r) => [r.ref, r.verifier]),
      [
        ['pair[0]', 'check'],
        ['both[0]', 'check'],
        ['pair[1]', 'audit'],
        ['both[1]', 'audit'],
      ],
    );
    assert.equal(lines['tasks[2]'], lines['tasks[0]'], "a loop's elements sit on its append");
  });

  test('a comment that names a list or a sequence changes nothing: the list is still followed', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          WORDS = ["a", "b"]
          tasks = [solve(level=1)]
          note = 1  # tasks and WORDS are grown below
          tasks.append(solve(level=2))
          # every word of WORDS gets a check in tasks
          checks = [check(expected=w) for w in WORDS]
          tasks += [audit(expected="z")]
        `,
    );
    assert.deepEqual(elementCounts(rows, ['tasks', 'checks']), [3, 2]);
  });

  test('a loop over what the index evaluates: arithmetic on known integers, a string, a clause of a comprehension', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          COUNT = 2
          SIDES = 3
          SKIP = 2
          doubled = []
          for n in range(COUNT * 2 - 1):
              doubled.append(solve(level=n))
          lettered = []
          for c in "xyz":
              lettered.append(check(expected=c))
          for n in range(3) if SIDES > 2 else ():
              lettered.append(audit(expected="w"))
          empty = [solve(level=1)]
          for n in range(SKIP - 2):
              empty.append(solve(level=n))
        `,
    );
    assert.deepEqual(elementCounts(rows, ['doubled', 'lettered', 'empty']), [3, 6, 1]);
  });

  test("an element's argument problem is reported once for the loop, and each element has a lens", async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        tasks = []
        for n in range(3):
            tasks.append(solve(levl=n))
      `;
    const ws = await workspace({ 'env.py': source });
    const problems = ws.problems('env.py');
    assert.equal(problems.filter((p) => p.message.includes('levl')).length, 1, JSON.stringify(problems));
    const appendLine = source.split('\n').findIndex((l) => l.includes('tasks.append'));
    const titles = codeLenses(ws.analyzer.workspace, ws.path('env.py'))
      .filter((l) => l.range.start.line === appendLine)
      .map((l) => l.command?.title);
    assert.deepEqual(titles.length, 3, JSON.stringify(titles));
  });

  test('a list the index cannot follow gets nothing added, one reordered lists nothing, and no error', async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        import os
        inserted = [solve(level=1)]
        inserted.insert(0, check(expected="a"))
        inserted.append(audit(expected="b"))
        guarded = []
        if os.sep:
            guarded.append(solve(level=2))
        guarded.append(solve(level=3))
        looped = []
        for n in range(len(os.sep)):
            looped.append(solve(level=n))
        looped.append(check(expected="c"))
        busy = []
        for n in (1, 2):
            print(n)
            busy.append(solve(level=n))
        taken = [solve(level=4), solve(level=5)]
        given = []
        given.append(taken.pop())
        taken.append(check(expected="d"))
        rebound = []
        rebound.append(solve(level=6))
        rebound = solve(level=7)
        extended = []
        extended.extend(os.sep)
        extended.append(solve(level=8))
        popped = [solve(level=1), check(expected="e")]
        popped.pop(0)
        sorted_later = [solve(level=2)]
        def later():
            sorted_later.sort()
        replaced = [solve(level=3)]
        replaced[0] = check(expected="f")
        deleted = [solve(level=4), check(expected="g")]
        del deleted[0]
        read = [solve(level=5)]
        print(len(read))
        read.append(check(expected="h"))
      `;
    assert.equal(
      discovered(source).length,
      3 + 2 + 2 + 2 + 2 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 2,
      'the runtime finds them all',
    );
    const { rows, problems } = await indexed(source);
    // An append the index cannot follow only adds at the end: what it listed before keeps its index (`read`).
    assert.deepEqual(
      rows.map((r) => r.ref),
      ['rebound', 'read[0]'],
    );
    assert.deepEqual(
      problems.filter((p) => p.severity === 'error'),
      [],
    );
  });
});

test("a for loop's targets hold its items: what they held before is no task, nor what a loop appends through them", async () => {
  const source =
    VERIFIABLE_ENV +
    py`
      a = solve(level=2)
      comp = [a for a in (3, 4)]
      more = []
      for a in (1, 2):
          more.append(a)
      b = check(expected="b")
      for b, c in ((solve(level=1), 2),):
          pass
      t = audit(expected="t")
      t.verifier = b
    `;
  const found = discovered(source);
  assert.deepEqual(
    found.map((r) => [r.ref, r.verifier]),
    [
      ['b', null],
      ['t', 'solve'],
    ],
  );
  const { rows, problems } = await indexed(source);
  // `b` holds a Task only the running module knows of, so the index leaves it and `t`'s verifier alone.
  assert.deepEqual(
    rows.map((r) => [r.ref, r.verifier]),
    [['t', null]],
  );
  assert.deepEqual(problems, []);
});

test('a second name for a Task keeps the verifier its call named where it was made, whatever that name holds later', async () => {
  const { rows } = await agrees(
    VERIFIABLE_ENV.replace('from hud import Environment', 'from hud import Environment, Task') +
      py`
        v = check(expected="v")
        a = Task(env="workspace", id="solve", args={"level": 1}, verifier=v)
        for v in (1, 2):
            pass
        b = a
        suite = [a]
      `,
  );
  assert.deepEqual(
    rows.map((r) => [r.ref, r.verifier]),
    [
      ['a', 'check'],
      ['b', 'check'],
      ['suite[0]', 'check'],
    ],
  );
});

test('a list bound to two names stays known by one when the other is bound again or deleted', async () => {
  for (const unbind of ['c = solve(level=9)', 'del c', 'c = None']) {
    const found = await agrees(
      VERIFIABLE_ENV +
        `c = suite = [solve(level=1)]\n${unbind}\nsuite.append(solve(level=2))\nsuite += [check(expected="x")]\nsuite[1].verifier = audit(expected="y")\n`,
    );
    assert.deepEqual(
      found.rows.filter((r) => r.ref.startsWith('suite')).map((r) => [r.ref, r.templateId, r.verifier]),
      [
        ['suite[0]', 'solve', null],
        ['suite[1]', 'solve', 'audit'],
        ['suite[2]', 'check', null],
      ],
      unbind,
    );
  }
  // Bound again to something made from the list, or changed beside the binding: not followed.
  for (const other of ['c = c + [solve(level=9)]', 'c = solve(level=9); suite.pop()']) {
    const found = await indexed(
      VERIFIABLE_ENV + `c = suite = [solve(level=1)]\n${other}\nsuite.append(solve(level=2))\n`,
    );
    assert.ok(!found.rows.some((r) => r.ref === 'suite[1]'), other);
  }
});

test('a list put whole in a display is still followed: that takes nothing from it and changes nothing in it', async () => {
  const found = await agrees(
    VERIFIABLE_ENV +
      py`
        suite = [solve(level=1)]
        pair = (suite, check(expected="p"))
        more = [suite] + [audit(expected="m")]
        suite.append(solve(level=2))
      `,
  );
  assert.deepEqual(found.rows.map((r) => r.ref).sort(), ['more[1]', 'pair[1]', 'suite[0]', 'suite[1]']);
  // One of its names bound again to a display that holds it under another: still known by that one.
  const held = await agrees(
    VERIFIABLE_ENV +
      py`
        c = suite = [solve(level=1)]
        suite = (check(expected="t"), c)
        for n in range(2):
            c.append(audit(expected=str(n)))
      `,
  );
  assert.deepEqual(held.rows.map((r) => r.ref).sort(), ['c[0]', 'c[1]', 'c[2]', 'suite[0]']);
});
