/**
 * Fuzz: random modules of template calls, lists, tuples (of calls and of
 * names that hold tasks), comprehensions (with `if` filters too), lists
 * grown by `append`, `extend`, `+=` and loops, `Task(...)`s,
 * names bound again, names deleted, loops that build tasks one at a time, tasks
 * made by a function, and
 * verifiers set by assignment (by call, by name, to None, on a list's element,
 * in a loop). Each is imported by the bundled runtime's discovery. Where it
 * imports, the index must list the same tasks with the same templates and
 * verifiers, and report no error; where it does not, nothing is asserted
 * (some import failures, like setting a verifier on None, are not caught
 * statically).
 *
 * A second run adds statements whose effect only running the module tells
 * (a verifier set under an `if` or in a loop the index does not read, a
 * Task or list passed to a function that sets verifiers, a builtin such as
 * `range` bound again, a Task or list handed to a dict or a second name, or
 * to a holder then passed to a function that sets verifiers, a list passed to
 * a function that reverses it):
 * there the index may list fewer tasks than discovery, but each task it
 * lists must be one discovery finds, with the same template and verifier.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import fc from 'fast-check';
import { byRef, indexed, rowsOf, VERIFIABLE_ENV, type DiscoveryReport, type Row } from '../server/discovery';
import { SEED } from './arbitraries';

const RUNTIME = join(__dirname, '..', '..', '..', 'runtime', 'python');
const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-fuzz-discovery-'));
after(() => rmSync(SCRATCH, { recursive: true, force: true }));

// Every name starts out bound to a task, so that most modules import; `c` and `suite` are one Task under two names.
const HEADER = `${VERIFIABLE_ENV.replace('from hud import Environment', 'from hud import Environment, Task')}def mk(n):\n    t = solve(level=n)\n    t.verifier = check(expected="f")\n    return t\n\ndef vset(t):\n    t.verifier = audit(expected="s")\n\ndef vall(ts):\n    for t in ts:\n        t.verifier = check(expected="r")\n\ndef flip(ts):\n    ts.reverse()\n\nLEVELS = (1, 2)\nSPAN = range(2, 5)\nCOUNT = 2\nL = []\nt0 = solve(level=5)\na = solve(level=0)\nb = solve(level=0)\nc = suite = solve(level=0)\n`;
const NAMES = ['a', 'b', 'c', 'suite'];
const name = fc.constantFrom(...NAMES);
// Lists grown in place: `L` starts out empty; appending to a name that holds a Task fails the import.
const listName = fc.constantFrom('L', 'L', ...NAMES);
const level = fc.integer({ min: 0, max: 9 });
const verifierCall = fc.constantFrom('check(expected="v")', 'audit(expected="w")');
// Comprehensions whose length the index can count (a display, a range of known integers, a name of known length).
const iterable = fc.constantFrom(
  '(1, 2)',
  '[3]',
  'range(3)',
  'range(1, 3)',
  'range(0)',
  '(4, 5, 6)',
  'LEVELS',
  'SPAN',
  'range(COUNT)',
  'range(1, COUNT)',
  'range(len(LEVELS))',
  'range(2 * 2 - 1)',
  'range(COUNT * 2)',
  '"ab"',
);
// `if` filters the index evaluates (server/src/analysis/staticValue.ts): on the loop's `x`, and on `x` and `y`.
const filterOfX = fc.constantFrom(
  'x > 1',
  'x % 2 == 0',
  'x != 2',
  'x in (1, 4)',
  'not x',
  'x',
  '1 < x <= 4',
  'x * 2 - 1 > 2',
  'x // 2 == 1',
  'x not in LEVELS',
  'x in SPAN',
  'x is not None',
  '-x < -1 or x == 0',
  '(x > 1) == True',
  'x ** 2 > 3',
  'x in range(2)',
  'len(LEVELS) > x',
  'x < COUNT',
  'x * COUNT in SPAN',
);
const filterOfXY = fc.constantFrom('y != x', 'x + y > 3', 'y in (1, 2)', 'x < y', 'x * y % 2');
const explicit = fc.constantFrom(
  'Task(env="workspace", id="solve", args={"level": 1})',
  'Task(env="workspace", id="check", args={"expected": "e"})',
  'Task(env="workspace", id="audit", args={"expected": "e"}, verifier=check(expected="v"))',
);

const statement = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(name, level).map(([n, l]) => `${n} = solve(level=${l})`) },
  { weight: 1, arbitrary: fc.tuple(name, level).map(([n, l]) => `${n} = [solve(level=${l}), check(expected="x")]`) },
  { weight: 1, arbitrary: fc.tuple(name, level).map(([n, l]) => `${n} = (solve(level=${l}),)`) },
  { weight: 1, arbitrary: fc.tuple(name, name).map(([n, m]) => `${n} = [${m}, solve(level=1)]`) },
  {
    weight: 1,
    arbitrary: fc.tuple(name, name, level).map(([n, m, l]) => `${n} = ${m} = [solve(level=${l}), check(expected="z")]`),
  },
  { weight: 1, arbitrary: fc.tuple(name, name).map(([n, m]) => `${n} = (check(expected="t"), ${m})`) },
  { weight: 1, arbitrary: fc.tuple(name, iterable).map(([n, it]) => `${n} = [solve(level=x) for x in ${it}]`) },
  { weight: 1, arbitrary: fc.tuple(name, iterable).map(([n, it]) => `${n} = [check(expected=str(x)) for x in ${it}]`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(name, iterable, iterable)
      .map(([n, it, more]) => `${n} = [audit(expected=f"{x}-{y}") for x in ${it} for y in ${more}]`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(name, name, iterable)
      .map(([n, m, it]) => `${n} = [solve(level=1)] + [audit(expected=str(x)) for x in ${it}] + [${m}]`),
  },
  { weight: 1, arbitrary: fc.tuple(name, name).map(([n, m]) => `${n} = (${m},) + (check(expected="p"),)`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(name, iterable, filterOfX)
      .map(([n, it, f]) => `${n} = [solve(level=x) for x in ${it} if ${f}]`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(name, iterable, fc.option(filterOfX), iterable, filterOfXY)
      .map(
        ([n, it, f, more, g]) =>
          `${n} = [audit(expected=f"{x}-{y}") for x in ${it}${f ? ` if ${f}` : ''} for y in ${more} if ${g}]`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(name, fc.option(fc.constantFrom('q > 2', 'p != q - 1', 'q')))
      .map(([n, f]) => `${n} = [solve(level=p) for p, q in ((1, 2), (3, 4), (5, 6))${f ? ` if ${f}` : ''}]`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(name, fc.integer({ min: 0, max: 2 }), verifierCall)
      .map(([n, i, v]) => `${n}[${i}].verifier = ${v}`),
  },
  { weight: 1, arbitrary: fc.tuple(listName, level).map(([n, l]) => `${n}.append(solve(level=${l}))`) },
  { weight: 1, arbitrary: listName.map((n) => `${n} += [check(expected="g"), audit(expected="h")]`) },
  {
    weight: 1,
    arbitrary: fc.tuple(listName, iterable).map(([n, it]) => `${n}.extend([solve(level=x) for x in ${it}])`),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(listName, iterable)
      .map(([n, it]) => `for x in ${it}:\n    ${n}.append(audit(expected=str(x)))\n    ${n} += [check(expected="l")]`),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 0, max: 3 }), verifierCall).map(([i, v]) => `L[${i}].verifier = ${v}`),
  },
  { weight: 1, arbitrary: level.map((l) => `L = [solve(level=${l})]`) },
  { weight: 2, arbitrary: fc.tuple(name, explicit).map(([n, t]) => `${n} = ${t}`) },
  { weight: 2, arbitrary: name.map((n) => `${n} = check(expected="q")`) },
  { weight: 1, arbitrary: name.map((n) => `${n} = None`) },
  // A second name for a Task (`t0` is never bound again); a name of a list is not followed as one.
  { weight: 1, arbitrary: name.map((n) => `${n} = t0`) },
  { weight: 2, arbitrary: fc.tuple(name, verifierCall).map(([n, v]) => `${n}.verifier = ${v}`) },
  { weight: 2, arbitrary: fc.tuple(name, name).map(([n, v]) => `${n}.verifier = ${v}`) },
  { weight: 1, arbitrary: name.map((n) => `${n}.verifier = None`) },
  // Verifiers set in a loop, over a list, a slice of one, names or enumerate of a list; the loop's target keeps the
  // last task.
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom('L', 'L[1:]', 'L[::-2]', 'L[:-1]', '(a, b)', '[c, t0]', ...NAMES),
        fc.constantFrom('t', '_t'),
        verifierCall,
      )
      .map(([it, t, v]) => `for ${t} in ${it}:\n    ${t}.verifier = ${v}`),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(listName, verifierCall).map(([n, v]) => `for i, t in enumerate(${n}): t.verifier = ${v}`),
  },
  { weight: 1, arbitrary: fc.constantFrom('del t', 'del a', 'del L', 'del b, c') },
  // Tasks made by a function, which sets their verifier.
  { weight: 1, arbitrary: fc.tuple(name, level).map(([n, l]) => `${n} = mk(${l})`) },
  { weight: 1, arbitrary: fc.tuple(listName, level).map(([n, l]) => `${n}.append(mk(${l}))`) },
  // A loop that builds tasks one at a time: bound to a name, given a verifier, put in a list (or not).
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        iterable,
        fc.constantFrom('t', 'u', '_t'),
        fc.constantFrom('solve(level=x)', 'check(expected=str(x))'),
        fc.option(verifierCall),
        fc.constantFrom('append', '+=', 'keep'),
        listName,
      )
      .map(([it, t, call, v, grow, n]) =>
        [
          `for x in ${it}:`,
          `    ${t} = ${call}`,
          ...(v ? [`    ${t}.verifier = ${v}`] : []),
          ...(grow === 'append' ? [`    ${n}.append(${t})`] : grow === '+=' ? [`    ${n} += [${t}]`] : []),
        ].join('\n'),
      ),
  },
);

/** Statements whose effect on verifiers only running the module tells. */
const unknowable = fc.oneof(
  fc.tuple(name, verifierCall).map(([n, v]) => `if COUNT:\n    ${n}.verifier = ${v}`),
  fc.tuple(name, verifierCall).map(([n, v]) => `if not COUNT:\n    ${n}.verifier = ${v}`),
  fc.tuple(name, iterable, verifierCall).map(([n, it, v]) => `for x in ${it}:\n    print(x)\n    ${n}.verifier = ${v}`),
  name.map((n) => `vset(${n})`),
  name.map((n) => `x = vset(t=${n})`),
  listName.map((n) => `vall(${n})`),
  name.map((n) => `print(${n})`),
  fc.tuple(listName, verifierCall).map(([n, v]) => `for t in sorted(${n}, key=id):\n    t.verifier = ${v}`),
  fc
    .tuple(listName, iterable, verifierCall)
    .map(([n, it, v]) => `for x in ${it}:\n    ${n}.append(solve(level=x))\n    ${n}[-1].verifier = ${v}`),
  fc
    .tuple(listName, name, verifierCall)
    .map(([n, m, v]) => `for x in range(2):\n    ${n}.append(${m})\n    ${n}[-1].verifier = ${v}`),
  // A Task or list handed to a holder the index does not follow, and reached or changed through it.
  fc.tuple(name, verifierCall).map(([n, v]) => `box = {"k": ${n}}\nfor t in box.values():\n    t.verifier = ${v}`),
  listName.map((n) => `other = ${n}\nother.reverse()`),
  listName.map((n) => `pair = (${n}, 1)\nmore = [pair]\nmore[0][0].reverse()`),
  fc.tuple(name, name).map(([n, m]) => `reg = set()\nr = reg\nr.add(${n})\nvall(reg)\nprint(${m})`),
  name.map((n) => `vall([${n}])`),
  listName.map((n) => `flip(${n})`),
  // A holder filled in a function's body, which counts once something calls it, or in a class body, at once.
  fc
    .tuple(name, fc.constantFrom('fill()\nvall(held)', 'vall(held)\nfill()', 'vall(held)'))
    .map(([n, rest]) => `held = set()\ndef fill():\n    held.add(${n})\n${rest}`),
  name.map((n) => `held = []\nclass Fill:\n    held.append(${n})\nvall(held)`),
  // Builtins bound again: what a later `range(...)`, `len(...)` or `enumerate(...)` gives only running tells.
  fc.constant('if COUNT:\n    range = lambda *a: [1]'),
  fc.constant('def len(x):\n    return 1'),
  fc.constant('if COUNT:\n    def enumerate(x):\n        return [(0, x[-1])]'),
);

/**
 * Writes `modules` out, runs discovery on each, and calls `compare` with the
 * index's rows and discovery's for each one that imports.
 */
async function againstDiscovery(
  modules: string[][],
  compare: (index: Row[], discovered: Row[], where: string) => void,
): Promise<void> {
  const run = mkdtempSync(join(SCRATCH, 'run-'));
  const paths = modules.map((lines, i) => {
    const dir = join(run, `m${i}`);
    mkdirSync(dir);
    writeFileSync(join(dir, 'env.py'), `${HEADER}${lines.join('\n')}\n`);
    return join(dir, 'env.py');
  });
  const r = spawnSync('python3', [join(__dirname, 'discover_many.py')], {
    input: JSON.stringify(paths),
    env: { ...process.env, PYTHONPATH: RUNTIME },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.equal(r.status, 0, r.stderr);
  const reports = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as DiscoveryReport);
  assert.equal(reports.length, modules.length);
  let imported = 0;
  for (const [i, report] of reports.entries()) {
    if (report.error) continue;
    imported++;
    const source = `${HEADER}${modules[i]!.join('\n')}\n`;
    const { rows, problems } = await indexed(source);
    const where = `module ${i}:\n${modules[i]!.join('\n')}`;
    compare(rows, rowsOf(report), where);
    assert.deepEqual(
      problems.filter((p) => p.severity === 'error'),
      [],
      where,
    );
  }
  // About a quarter of random modules import (the rest fail as Python would, on a verifier set on None or a list);
  // 74-118 of 400 on the seeds tried; at least 60 keeps each run meaningful on any seed.
  assert.ok(imported >= 60, `only ${imported} of ${modules.length} modules imported`);
}

test('the index agrees with discovery on random modules that import', async () => {
  const modules = fc.sample(fc.array(statement, { minLength: 2, maxLength: 10 }), { seed: SEED, numRuns: 400 });
  await againstDiscovery(modules, (index, discovered, where) =>
    assert.deepEqual(byRef(index), byRef(discovered), where),
  );
});

test('where only running a module tells a verifier, each task the index lists is one discovery finds', async () => {
  const line = fc.oneof({ weight: 3, arbitrary: statement }, { weight: 1, arbitrary: unknowable });
  const modules = fc.sample(fc.array(line, { minLength: 2, maxLength: 10 }), { seed: SEED + 1, numRuns: 400 });
  let fewer = 0;
  await againstDiscovery(modules, (index, discovered, where) => {
    for (const row of index)
      assert.deepEqual(
        row,
        discovered.find((r) => r.ref === row.ref),
        where,
      );
    if (index.length < discovered.length) fewer++;
  });
  // The statements above do leave the index short of discovery: the property is not checked on modules alone.
  assert.ok(fewer >= 10, `the index listed fewer tasks than discovery in only ${fewer} modules`);
});
