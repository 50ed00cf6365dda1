/**
 * Task lists made by a list comprehension, the way the SDK's own examples
 * write a suite: the index lists one task per element when the number of
 * elements is known without running the module, and each module here is
 * also run by the bundled runtime's discovery, which must find the same.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Commands } from '../../../common/lspMessages';
import {
  MAX_COMPREHENSION_ELEMENTS,
  readComprehension,
  type KnownNames,
} from '../../../server/src/analysis/comprehension';
import { createPythonParser, type Parser } from '../../../server/src/analysis/treeSitter';
import { codeLenses } from '../../../server/src/features/codeLens';
import { hover } from '../../../server/src/features/hover';
import { references } from '../../../server/src/features/navigation';
import { agrees, discovered, elementCounts, indexed, indexesNothing, VERIFIABLE_ENV } from './discovery';
import { py, workspace } from './helpers';

let parser: Parser;
before(async () => {
  parser = await createPythonParser();
});

/** readComprehension on `text`, which is one bracketed list, and its tree. */
function read(text: string, known?: KnownNames) {
  const tree = parser.parse(text)!;
  try {
    return readComprehension(text, 0, text.length - 1, known, (start, end) => {
      const node = tree.rootNode.descendantForIndex(start, end);
      return node?.startIndex === start && node.endIndex === end && !node.hasError ? node : undefined;
    });
  } finally {
    tree.delete();
  }
}

/** Its element and count, when it is counted. */
const counted = (text: string, known?: KnownNames) => {
  const c = read(text, known);
  return c?.count === undefined ? undefined : { element: text.slice(c.element.start, c.element.end), count: c.count };
};

describe('what a comprehension counts to', () => {
  test('a display or a literal range, with one for clause and no filter', () => {
    assert.deepEqual(counted('[solve(level=n) for n in (1, 2, 3)]'), { element: 'solve(level=n)', count: 3 });
    assert.deepEqual(counted('[solve(level=n) for n in [4, 5]]'), { element: 'solve(level=n)', count: 2 });
    assert.deepEqual(counted('[solve(level=n) for n in (7,)]')?.count, 1);
    assert.deepEqual(counted('[solve(level=n) for n in ((7))]')?.count, undefined, '(7) is 7, not a tuple');
    assert.equal(counted('[solve(level=n) for n in range(4)]')?.count, 4);
    assert.equal(counted('[solve(level=n) for n in range(1, 6)]')?.count, 5);
    assert.equal(counted('[solve(level=n) for n in range(2, 7, 2)]')?.count, 3);
    assert.equal(counted('[solve(level=n) for n in range(5, 0, -2)]')?.count, 3);
    assert.equal(counted('[solve(level=n) for n in range(-3)]')?.count, 0);
    assert.equal(counted('[solve(level=a) for a, b in ((1, 2), (3, 4))]')?.count, 2);
    assert.deepEqual(
      counted('[\n    solve(level=n)  # one per level\n    for n in (\n        1,  # low\n        2,\n    )\n]'),
      { element: 'solve(level=n)', count: 2 },
    );
  });

  test('clauses after the first multiply the count, unless they run over what an earlier one binds', () => {
    assert.deepEqual(counted('[solve(level=n) for m in (1, 2) for n in (3, 4)]'), {
      element: 'solve(level=n)',
      count: 4,
    });
    assert.equal(counted('[f(a, b) for a in range(3) for b in ("x", "y")]')?.count, 6);
    assert.equal(counted('[f(a, b, c) for a in (1, 2)\n for b in [1, 2]\n for c in range(2)]')?.count, 8);
    assert.equal(counted('[f(a) for a in (1, 2) for b in ()]')?.count, 0);
    const known: KnownNames = {
      lengthOf: (name) => ({ WORDS: 2, m: 7 })[name],
      intOf: (name) => ({ COUNT: 3, N: 4 })[name],
      builtin: () => true,
    };
    assert.equal(counted('[f(n) for n in range(COUNT)]', known)?.count, 3);
    assert.equal(counted('[f(n) for n in range(1, N)]', known)?.count, 3);
    assert.equal(counted('[f(i) for i in range(len(WORDS))]', known)?.count, 2);
    assert.equal(counted('[f(i) for i in range( len( WORDS ) )]', known)?.count, 2);
    assert.equal(counted('[f(w, n) for w in WORDS for n in range(COUNT)]', known)?.count, 6);
    // A later clause's names are the earlier clauses' loop variables, whatever the module binds to them.
    assert.equal(counted('[f(n) for m in (1, 2) for n in m]', known), undefined, 'an int is not iterable');
    assert.equal(counted('[f(n) for N in (1, 2) for n in range(N)]', known)?.count, 3, '1 + 2');
    assert.equal(counted('[f(n) for m in ((1, 2), (3,)) for n in m]', known)?.count, 3);
    assert.equal(counted('[f(n) for m in () for n in range(count)]', known)?.count, 0, 'the second never runs');
    assert.equal(counted('[f(n) for n in range(COUNT * 2)]', known)?.count, 6);
    assert.equal(counted('[f(c) for c in "abc"]', known)?.count, 3);
    assert.equal(counted('[f(n) for n in range(10**3)]', known)?.count, 1000);
    assert.equal(counted('[f(n) for (a, WORDS) in ((1, 2),) for n in range(len(WORDS))]', known), undefined);
    assert.equal(counted('[f(n) for n in range(len(LEVELS))]', known), undefined);
    assert.equal(counted('[f(n) for n in range(WORDS)]', known), undefined, 'WORDS is no integer');
  });

  test('keywords inside strings, brackets and names are not clauses', () => {
    assert.equal(counted('[solve(note="for x in y if z") for n in (1, 2)]')?.count, 2);
    assert.equal(counted('[solve(level=[m for m in n]) for n in ((1,), (2,))]')?.count, 2);
    assert.equal(counted('[form(info=n) for n in (1, 2)]')?.count, 2);
    assert.equal(counted('[solve(level=n) for n in (f"for {1}", "if")]')?.count, 2);
  });

  test('anything whose length needs the module to run is not counted', () => {
    for (const text of [
      '[solve(level=1), solve(level=2)]',
      '[solve(level=1)]',
      '[solve(level=n) for n in LEVELS]',
      '[solve(level=n) for n in range(count)]',
      '[solve(level=n) for n in (1, 2, 3) if n > count]',
      '[solve(level=n) for m in (1, 2) for n in (3, 4) if n.real]',
      '[solve(level=n) for n in range(1, 5, 0)]',
      '[solve(level=n) for n in (*low, 9)]',
      '[solve(level=n) for m in range(100) for n in range(100)]',
      '[solve(level=n) if n else None for n in (1, 2)]',
      '[solve(level=n) async for n in levels()]',
      `[solve(level=n) for n in range(${MAX_COMPREHENSION_ELEMENTS + 1})]`,
    ])
      assert.equal(counted(text), undefined, text);
    assert.equal(counted(`[solve(level=n) for n in range(${MAX_COMPREHENSION_ELEMENTS})]`)?.count, 2000);
  });
});

describe('comprehension tasks in the index', () => {
  test('one task per element, as discovery finds them, each with its own verifier', async () => {
    const { rows, lines } = await agrees(
      VERIFIABLE_ENV +
        py`
          tasks = [solve(level=n) for n in (1, 2, 3)]
          tasks[1].verifier = check(expected="two")
          graded = [
              solve(level=n)
              for n in range(2, 7, 2)
          ]
          none = [solve(level=n) for n in range(0)]
        `,
    );
    assert.deepEqual(
      rows.map((r) => [r.ref, r.verifier]),
      [
        ['tasks[0]', null],
        ['tasks[1]', 'check'],
        ['tasks[2]', null],
        ['graded[0]', null],
        ['graded[1]', null],
        ['graded[2]', null],
      ],
    );
    assert.equal(lines['tasks[2]'], lines['tasks[0]'], 'every element sits on the comprehension');
  });

  test("Task(...) elements, a Taskset's list, a verifier set on a list bound again, as discovery says", async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV.replace('from hud import Environment', 'from hud import Environment, Task, Taskset') +
        py`
          suite = [Task(env="workspace", id="solve", args={"level": n}, verifier=check(expected="v")) for n in (1, 2)]
          spread = Taskset("spread", [solve(level=s) for s in range(5)])
          tasks = [solve(level=n) for n in (1, 2)]
          tasks[0].verifier = audit(expected="old")
          tasks = [check(expected=e) for e in ("a", "b", "c")]
        `,
    );
    assert.equal(rows.filter((r) => r.ref.startsWith('spread[')).length, 5);
  });

  test('over a module-level name bound to a display or a range, and only iterated over before', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          WORDS = ("a", "b")
          LEVELS: range = range(1, 4)
          checks = [check(expected=w) for w in WORDS]
          levels = [solve(level=n) for n in LEVELS]
          again = [audit(expected="x") for c in checks]
          has_z = "z" in WORDS
          for n in LEVELS:
              pass
          once_more = [audit(expected=w) for w in WORDS]
          WORDS = ("c",)
        `,
    );
    assert.deepEqual(elementCounts(rows, ['checks', 'levels', 'again', 'once_more']), [2, 3, 2, 2]);
  });

  test('over integers bound at module level, len(...) of a known name, and several clauses', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          COUNT = 3
          WORDS = ("a", "b")
          grid = [audit(expected=w * n) for n in range(COUNT) for w in WORDS]
          by_index = [check(expected=str(i)) for i in range(len(WORDS))]
          steps = [solve(level=n) for n in range(1, COUNT)]
          sized = len(WORDS)
          still = [check(expected=w) for w in WORDS for k in range(2)]
        `,
    );
    assert.deepEqual(elementCounts(rows, ['grid', 'by_index', 'steps', 'still']), [6, 2, 2, 4]);
  });

  test('a comprehension whose length is not known lists nothing, and is no error', async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        import os
        LEVELS = [1, 2]
        LEVELS.append(3)
        tasks = [solve(level=n) for n in LEVELS]
        if os.sep:
            WORDS = ("a", "b")
        WORDS = ("a",)
        checks = [check(expected=w) for w in WORDS]
        BOTH = [1, 2]
        mixed = [solve(level=n) for n in BOTH]  # BOTH: counted; the next one is not, BOTH is read in between
        picked = [solve(level=n) for n in (1, 2, 3) if n != len(os.sep) + 1]
        chosen = [solve(level=n) if n else check(expected="x") for n in (0, 1)]
        ordered = sorted(BOTH)
        after = [solve(level=n) for n in BOTH]
        COUNT = 2
        if os.sep:
            COUNT = 3
        counted = [solve(level=n) for n in range(COUNT)]
        SIZE = 2
        SIZE, _ = 3, 0
        sized = [solve(level=n) for n in range(SIZE)]
        START = 1
        START += 1
        started = [solve(level=n) for n in range(START, 4)]
      `;
    assert.equal(
      discovered(source).length,
      3 + 1 + 2 + 2 + 2 + 2 + 3 + 3 + 2,
      'the runtime finds them by running the module',
    );
    const { rows, problems } = await indexed(source);
    assert.deepEqual(
      rows.map((r) => r.ref),
      ['mixed[0]', 'mixed[1]'],
    );
    assert.deepEqual(problems, []);
    assert.equal(read('[solve(level=1), solve(level=2)]'), undefined, 'a plain list');
    const uncounted = read('[solve(level=n) for n in LEVELS]');
    assert.deepEqual(uncounted && { ...uncounted, element: undefined }, { element: undefined, count: undefined });
  });

  test('with if filters: the elements that pass, where the values the filters read need no running', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          LEVELS = (1, 2, 3, 4)
          SPAN = range(2, 9)
          LIMIT = 3
          evens = [solve(level=n) for n in range(6) if n % 2 == 0]
          kept = [solve(level=n) for n in LEVELS if n != 2 if n <= LIMIT]
          words = [check(expected=w) for w in ("a", "bb", "ccc") if len(w) > 1 and w != "ccc"]
          pairs = [audit(expected=w) for w, n in (("x", 1), ("y", 2)) if n > 1]
          nested = [solve(level=m) for n in range(4) for m in range(n) if m == n - 1]
          spanned = [
              solve(level=n)
              for n in SPAN  # odd ones
              if n in (3, 5, 7)
          ]
          none_left = [solve(level=n) for n in range(3) if n > 5]
          unpacked = [solve(level=a) for a, b in ((1, 2), (3, 4))]
          evens[1].verifier = check(expected="two")
        `,
    );
    assert.deepEqual(
      elementCounts(rows, ['evens', 'kept', 'words', 'pairs', 'nested', 'spanned', 'none_left', 'unpacked']),
      [3, 2, 1, 1, 3, 3, 0, 2],
    );
    assert.equal(rows.find((r) => r.ref === 'evens[1]')?.verifier, 'check');
  });

  test('a filter that reads what only running the module tells lists nothing', async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        import os
        LIMIT = 2
        LIMIT += 0
        WORDS = ["a", "b"]
        WORDS.sort()
        by_attribute = [solve(level=n) for n in range(3) if n != len(os.sep)]
        by_call = [solve(level=n) for n in range(3) if abs(n) > 1]
        by_printed = [solve(level=n) for n in range(3) if n < LIMIT]
        by_sorted = [check(expected=w) for w in WORDS if w != "a"]
        by_float = [solve(level=n) for n in range(3) if n / 2 > 0.5]
        by_walrus = [solve(level=n) for n in range(3) if (m := n) > 0]
        too_many = [solve(level=n) for n in range(100) for m in range(1000) if m == 0]
      `;
    assert.equal(
      discovered(source).length,
      2 + 1 + 2 + 1 + 1 + 2 + 100,
      'the runtime finds them by running the module',
    );
    await indexesNothing(source);
  });

  test('an integer, a range or a tuple of literals stays known past mentions that only read it', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          N = 4
          HALF = N // 2
          print(N)  # N is the count
          WORDS = ("a", "b")
          print(WORDS, len(WORDS))
          SPAN = range(1, N)
          shown = f"{N}-{SPAN}"
          if N > 2:
              pass
          by_n = [solve(level=i) for i in range(N) if i >= N // 2]
          by_words = [check(expected=w) for w in WORDS if w != "a"]
          by_span = [solve(level=i) for i in SPAN]
        `,
    );
    assert.deepEqual(elementCounts(rows, ['by_n', 'by_words', 'by_span']), [2, 1, 3]);
  });

  test('a list, a tuple holding lists, or a name that may be bound again is not known past a mention', async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        L = ["a", "b"]
        print(L)
        T = ([1], [2])
        T[0].append(3)
        M = 3
        def bump():
            global M
            M = 5
        K = 2
        globals()["K"] = 9
        P = 2
        (P) = 3
        Q = 1
        [Q, other] = 2, 3
        by_list = [check(expected=w) for w in L]
        by_tuple = [solve(level=1) for t in T]
        by_m = [solve(level=i) for i in range(M)]
        by_k = [solve(level=i) for i in range(K)]
        by_p = [solve(level=i) for i in range(P)]
        by_q = [solve(level=i) for i in range(Q)]
      `;
    assert.equal(discovered(source).length, 2 + 2 + 3 + 9 + 3 + 2, 'the runtime finds them by running the module');
    await indexesNothing(source);
  });

  test('integers computed from known ones are known: `HALF = COUNT // 2`, `N = len(LEVELS)`', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          COUNT = 5
          LEVELS = (1, 2, 3)
          HALF = COUNT // 2
          N = len(LEVELS)
          TOTAL = N * 2 - 1
          upper = [solve(level=i) for i in range(COUNT) if i > HALF]
          by_len = [solve(level=i) for i in range(N)]
          by_total = [solve(level=i) for i in range(TOTAL)]
        `,
    );
    assert.deepEqual(elementCounts(rows, ['upper', 'by_len', 'by_total']), [2, 3, 5]);
  });

  // Each module binds the builtin before the comprehension, so discovery finds one task where `range(3)` would
  // make three: counting it would list two tasks that do not exist.
  for (const [shape, binding] of [
    ['a def', 'def range(n):\n    return [0]\n'],
    ['an if block', 'if True:\n    range = lambda n: [0]\n'],
    [
      'a function run at import, through global',
      'def patch():\n    global range\n    range = lambda n: [0]\n\npatch()\n',
    ],
    ['globals()', 'globals()["range"] = lambda n: [0]\n'],
    ['a star import', 'from shadowing import *\n'],
    ['builtins', 'import builtins\nbuiltins.len = lambda x: 1\n'],
  ] as const)
    test(`a module that binds range itself (${shape}) lists nothing where it calls it`, async () => {
      const module = VERIFIABLE_ENV + binding + '\ntasks = [solve(level=n) for n in range(3)]\n';
      if (shape !== 'a star import' && shape !== 'builtins') assert.equal(discovered(module).length, 1, module);
      await indexesNothing(module);
    });

  test('len, enumerate and loops that grow a list follow the builtins the module binds too', async () => {
    await indexesNothing(
      VERIFIABLE_ENV +
        py`
          def len(x):
              return 1
          LEVELS = (1, 2, 3)
          by_len = [solve(level=i) for i in range(len(LEVELS))]
          N = len(LEVELS)
          by_n = [solve(level=i) for i in range(N)]
        `,
    );
    const growing =
      VERIFIABLE_ENV +
      'def range(n):\n    return [0]\n\ntasks = []\nfor n in range(3):\n    tasks.append(solve(level=n))\n';
    assert.equal(discovered(growing).length, 1);
    await indexesNothing(growing);
    const verifying =
      VERIFIABLE_ENV +
      'suite = [solve(level=1), solve(level=2)]\nif True:\n    def enumerate(x):\n        return [(0, x[1])]\n' +
      'for i, t in enumerate(suite):\n    t.verifier = check(expected="a")\n';
    // Discovery gives suite[1] the verifier and suite[0] none: the loop is not read, and says nothing wrong.
    assert.deepEqual(
      discovered(verifying).map((r) => [r.ref, r.verifier]),
      [
        ['suite[0]', null],
        ['suite[1]', 'check'],
        ['t', 'check'],
      ],
    );
    assert.ok((await indexed(verifying)).rows.every((r) => r.ref !== 'suite[0]' || r.verifier === null));
  });

  test('range stays the builtin past prose that names it, a later binding, and its own calls', async () => {
    const { rows } = await agrees(
      VERIFIABLE_ENV +
        py`
          NOTE = "pick a level in range 0-2"
          SPAN = range(2, 5)
          first = [solve(level=n) for n in range(3)]
          second = [solve(level=n) for n in SPAN if n in range(3, 9)]
          def later():
              range = list
              return range
        `,
    );
    assert.deepEqual(elementCounts(rows, ['first', 'second']), [3, 2]);
  });

  test('a filter is read from the tree: a syntax error elsewhere leaves it counted, one inside it not', async () => {
    const { rows } = await indexed(
      VERIFIABLE_ENV +
        py`
          evens = [solve(level=n) for n in range(4) if n % 2 == 0]
          broken = [solve(level=n) for n in range(4) if n %% 2]
          def half(:
              pass
        `,
    );
    assert.deepEqual(
      rows.map((r) => r.ref),
      ['evens[0]', 'evens[1]'],
    );
  });

  test("an element's argument problem is reported once, and the call is one reference", async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        tasks = [solve(levl=n) for n in (1, 2, 3)]
        later = [solve(level=n) for n in range(3)]
      `;
    const ws = await workspace({ 'env.py': source });
    const problems = ws.problems('env.py');
    assert.equal(problems.filter((p) => p.message.includes('levl')).length, 1, JSON.stringify(problems));
    const line = source.split('\n').findIndex((l) => l.startsWith('async def solve'));
    const refs = references(ws.analyzer.workspace, ws.path('env.py'), { line, character: 12 }, false);
    const laterLine = source.split('\n').findIndex((l) => l.startsWith('later ='));
    assert.equal(refs.filter((r) => r.range.start.line === laterLine).length, 1, JSON.stringify(refs));
  });

  test("hover on the element's call speaks of every element, and on an element's verifier of that one", async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        tasks = [solve(level=n) for n in (1, 2, 3)]
        tasks[1].verifier = check(expected="two")
        single = [solve(level=n) for n in [4]]
      `;
    const ws = await workspace({ 'env.py': source });
    const lineOf = (prefix: string) => source.split('\n').findIndex((l) => l.startsWith(prefix));
    const at = (line: number, character: number) =>
      (hover(ws.analyzer.workspace, ws.path('env.py'), { line, character })?.contents as { value: string }).value;
    const onCall = at(lineOf('tasks ='), 'tasks = [so'.length);
    assert.match(onCall, /\*\*3 tasks\*\* `env\.py::tasks\[0\]` … `tasks\[2\]`, one per element of the comprehension/);
    assert.match(onCall, /\*\*Verifier\*\* of `tasks\[1\]`: `workspace\/check`/);
    assert.doesNotMatch(onCall, /of `tasks\[0\]`/);
    const onVerifier = at(lineOf('tasks[1].verifier'), 'tasks[1].verifier = ch'.length);
    assert.match(onVerifier, /\*\*Task\*\* `env\.py::tasks\[1\]`/);
    assert.match(at(lineOf('single ='), 'single = [so'.length), /\*\*Task\*\* `env\.py::single\[0\]`/);
  });

  test('CodeLens names each task of a crowded line, and sends the rest to the Testing view', async () => {
    const source =
      VERIFIABLE_ENV +
      py`
        pair = [solve(level=n) for n in (1, 2)]
        many = [solve(level=n) for n in range(40)]
      `;
    const ws = await workspace({ 'env.py': source });
    const lenses = codeLenses(ws.analyzer.workspace, ws.path('env.py'));
    const titles = (line: number) => lenses.filter((l) => l.range.start.line === line).map((l) => l.command!.title);
    const lineOf = (prefix: string) => source.split('\n').findIndex((l) => l.startsWith(prefix));
    assert.deepEqual(titles(lineOf('pair =')), ['▶ Run task pair[0]', '▶ Run task pair[1]']);
    assert.deepEqual(titles(lineOf('many =')), [
      '▶ Run task many[0]',
      '▶ Run task many[1]',
      '▶ Run task many[2]',
      '▶ Run task many[3]',
      '▶ Run task many[4]',
      '35 more tasks in the Testing view',
    ]);
    const refs = lenses
      .filter((l) => l.command?.command === Commands.runTask)
      .map((l) => (l.command!.arguments![0] as Commands.RunTaskArgs).ref);
    assert.deepEqual(refs.slice(0, 3), ['env.py::pair[0]', 'env.py::pair[1]', 'env.py::many[0]']);
    assert.equal((await indexed(source)).rows.length, 42);
  });
});
