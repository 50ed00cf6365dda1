import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { internDotted } from '../../../server/src/analysis/intern';
import { LineMap, positionOf } from '../../../server/src/analysis/lines';
import { literalArg } from '../../../server/src/analysis/literalArg';
import { StringMultimap } from '../../../server/src/analysis/multimap';

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

  it('callees and literal arguments are shared, frozen, and read the same as before', () => {
    assert.equal(internDotted('envs . judge.verify'), internDotted('envs . judge.verify'));
    assert.deepEqual(internDotted('envs . judge.verify'), ['envs', 'judge', 'verify']);
    assert.ok(Object.isFrozen(internDotted('solve')));
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
});
