import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Analyzer } from '../../../server/src/analysis/analyzer';
import { BoundedCache } from '../../../server/src/analysis/boundedCache';
import type { PythonFacts } from '../../../server/src/analysis/facts';
import { fitted } from '../../../server/src/analysis/fitted';
import { internDotted } from '../../../server/src/analysis/intern';
import { LineMap, positionOf, sharedRange } from '../../../server/src/analysis/lines';
import { literalArg } from '../../../server/src/analysis/literalArg';
import { StringMultimap } from '../../../server/src/analysis/multimap';
import { listIndexableFiles, readFiles } from '../../../server/src/analysis/scan';
import { readParams } from '../../../server/src/analysis/templateBody';
import { codeLenses } from '../../../server/src/features/codeLens';
import { hover } from '../../../server/src/features/hover';
import { definition, references } from '../../../server/src/features/navigation';
import { documentSymbols, workspaceSymbols } from '../../../server/src/features/symbols';

const REPO = join(__dirname, '..', '..', '..');
const ROOTS = ['examples', 'test/conformance/envs', 'test/fixtures'].map((f) => join(REPO, f));

describe('values the index shares between files', () => {
  it('a multimap keeps values in the order added, once each, and forgets a key with no value left', () => {
    const m = new StringMultimap();
    assert.deepEqual([...m.get('k')], []);
    m.add('k', 'a');
    m.add('k', 'a');
    assert.deepEqual([...m.get('k')], ['a']);
    m.add('k', 'b');
    m.add('k', 'c');
    assert.deepEqual([...m.get('k')], ['a', 'b', 'c']);
    m.delete('k', 'b');
    assert.deepEqual([...m.get('k')], ['a', 'c']);
    m.delete('k', 'a');
    m.delete('k', 'c');
    assert.deepEqual([...m.get('k')], []);
    m.add('k', 'd');
    m.delete('k', 'x');
    assert.deepEqual([...m.get('k')], ['d']);
    m.delete('k', 'd');
    assert.deepEqual([...m.get('k')], []);
  });

  it('a bounded cache starts again when full, and what it handed out stays as it was', () => {
    const cache = new BoundedCache<number, { n: number }>(3);
    const first = cache.add(1, { n: 1 });
    cache.add(2, { n: 2 });
    cache.add(3, { n: 3 });
    assert.equal(cache.get(1), first);
    cache.add(4, { n: 4 }); // full: everything before is forgotten
    assert.equal(cache.get(1), undefined);
    assert.equal(cache.get(3), undefined);
    assert.deepEqual(cache.get(4), { n: 4 });
    assert.deepEqual(first, { n: 1 });
    assert.notEqual(cache.add(1, { n: 1 }), first);
  });

  it('positions are shared across files and cannot be changed through one of them', () => {
    const a = new LineMap('x = 1\ny = 2\n').positionAt(8);
    const b = new LineMap('abcdef\nzzzzzz\n').positionAt(9);
    assert.deepEqual(a, { line: 1, character: 2 });
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a));
    assert.throws(() => {
      (a as { line: number }).line = 5;
    }, TypeError);
    // Columns too wide for the shared table still get the right position.
    const wide = positionOf(3, 0x20000);
    assert.deepEqual(wide, { line: 3, character: 0x20000 });
  });

  it('ranges are shared across files, frozen, and exact at every width', () => {
    const a = new LineMap('x = 1\ny = 2\n').rangeAt(6, 11);
    const b = new LineMap('abcdef\nzzzzzz\n').rangeAt(7, 12);
    assert.deepEqual(a, { start: { line: 1, character: 0 }, end: { line: 1, character: 5 } });
    assert.equal(a, b);
    assert.ok(Object.isFrozen(a));
    assert.throws(() => {
      (a as { end: unknown }).end = a.start;
    }, TypeError);
    // Each of the four numbers the key packs, at the edge of its field and past it.
    const cases: [number, number, number, number][] = [
      [0, 0, 0, 0],
      [0x7ffff, 4095, 0x7ffff + 1023, 4095],
      [0x80000, 0, 0x80000, 1],
      [7, 4096, 7, 4097],
      [7, 1, 7 + 1024, 0],
      [7, 1, 7 + 1023, 0],
      [9, 5, 8, 2],
    ];
    for (const [sl, sc, el, ec] of cases) {
      const r = sharedRange(positionOf(sl, sc), positionOf(el, ec));
      assert.deepEqual(r, { start: { line: sl, character: sc }, end: { line: el, character: ec } });
      assert.deepEqual(sharedRange(positionOf(sl, sc), positionOf(el, ec)), r);
    }
    // Neighbours in every field are different ranges.
    const base = sharedRange(positionOf(2, 3), positionOf(4, 5));
    for (const other of [
      sharedRange(positionOf(3, 3), positionOf(5, 5)),
      sharedRange(positionOf(2, 4), positionOf(4, 5)),
      sharedRange(positionOf(2, 3), positionOf(5, 5)),
      sharedRange(positionOf(2, 3), positionOf(4, 6)),
    ])
      assert.notDeepEqual(other, base);
  });

  it('parameter lists with the same text are one list of frozen parameters, whatever file they sit in', () => {
    const one = 'async def solve(level: int = 1, *, target: str = "out.txt"):';
    const two = `# another file\n\n${one}`;
    const params = (text: string) => {
      const open = text.indexOf('(');
      return readParams(text, open + 1, text.lastIndexOf(')'));
    };
    const a = params(one);
    assert.deepEqual(a, [
      { name: 'level', kind: 'positional', annotation: 'int', default: '1' },
      { name: 'target', kind: 'keyword', annotation: 'str', default: '"out.txt"' },
    ]);
    assert.equal(params(two), a);
    assert.ok(Object.isFrozen(a[0]));
    assert.throws(() => ((a[0] as { name: string }).name = 'x'), TypeError);
    assert.deepEqual(params('def f(level: int = 2):'), [
      { name: 'level', kind: 'positional', annotation: 'int', default: '2' },
    ]);
    assert.deepEqual(params('def f():'), []);
  });

  it('callees and literal arguments are shared and read the same as before', () => {
    assert.equal(internDotted('envs . judge.verify'), internDotted('envs . judge.verify'));
    assert.deepEqual(internDotted('envs . judge.verify'), ['envs', 'judge', 'verify']);
    assert.ok(Object.isFrozen(literalArg('f(3)', { start: 2, end: 3 })));
    const text = 'f(3, "maths", 3, True, 1_000)';
    const three = literalArg(text, { start: 2, end: 3 });
    assert.deepEqual(three, { kind: 'int', value: '3' });
    assert.equal(three, literalArg(text, { start: 14, end: 15 }));
    assert.deepEqual(literalArg(text, { start: 5, end: 12 }), { kind: 'str', value: 'maths' });
    assert.deepEqual(literalArg(text, { start: 17, end: 21 }), { kind: 'bool', value: 'True' });
    assert.deepEqual(literalArg(text, { start: 23, end: 28 }), { kind: 'int', value: '1000' });
    const long = `"${'p'.repeat(100)}"`;
    assert.deepEqual(literalArg(long, { start: 0, end: long.length }), { kind: 'str', value: 'p'.repeat(100) });
  });

  it("shared arrays are plain arrays, and nothing the index or its features do over the repository's workspaces changes them", async () => {
    const empty = fitted<string>([]);
    const callee = internDotted('envs.judge.verify');
    const params = readParams('(level: int = 1)', 1, 15);
    const analyzer = await Analyzer.create({ roots: ROOTS });
    try {
      analyzer.setFiles(await readFiles(await listIndexableFiles(ROOTS)));
      const ws = analyzer.workspace;
      const index = ws.index();
      assert.ok(index.tasks.length > 50, `only ${index.tasks.length} tasks indexed`);
      workspaceSymbols(ws, '');
      let python = 0;
      for (const path of [...ws.paths()]) {
        ws.problems(path);
        const facts = ws.facts(path);
        if (facts?.kind !== 'python') continue;
        python++;
        codeLenses(ws, path);
        documentSymbols(ws, path);
        for (const at of positionsOf(facts)) {
          hover(ws, path, at);
          definition(ws, path, at);
          references(ws, path, at, true);
        }
        // An edit relinks the file and everything that depends on it.
        analyzer.openDocument(path, `${readFileSync(path, 'utf8')}\n# edited\n`);
      }
      assert.ok(python > 30, `only ${python} Python files`);
    } finally {
      analyzer.dispose();
    }
    assert.equal(empty.length, 0);
    assert.strictEqual(fitted<string>([]), empty, 'fitted([]) is one shared array');
    assert.deepEqual(callee, ['envs', 'judge', 'verify']);
    assert.deepEqual(
      params.map((p) => p.name),
      ['level'],
    );
    for (const shared of [empty, callee, params])
      assert.ok(!Object.isFrozen(shared) && !Object.isSealed(shared), 'a shared array is a plain array');
  });
});

/** Where the features have something to say: every task, template and verifier assignment. */
function positionsOf(facts: PythonFacts) {
  return [
    ...facts.tasks.flatMap((t) => [t.range.start, t.call.calleeRange.start]),
    ...facts.templates.flatMap((t) => [t.nameRange.start, t.decoratorRange.start]),
    ...facts.verifierAssignments.map((a) => a.value.range.start),
  ];
}
