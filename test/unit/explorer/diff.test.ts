import { test } from 'node:test';
import assert from 'node:assert/strict';
import { diffLines, MAX_CELLS, splitLines } from '../../../media/src/explorer/diff';

const show = (a: string, b: string) =>
  diffLines(splitLines(a), splitLines(b)).map(
    (o) => `${o.kind === 'add' ? '+' : o.kind === 'del' ? '-' : ' '}${o.text}`,
  );

test('identical text is all unchanged lines', () => {
  assert.deepEqual(show('a\nb\n', 'a\nb'), [' a', ' b']);
  assert.deepEqual(show('', ''), []);
});

test('a changed line in the middle is a removal and an addition between common lines', () => {
  assert.deepEqual(show('head\nsecret: hunter2\ntail', 'head\nsecret: hunter3\ntail'), [
    ' head',
    '-secret: hunter2',
    '+secret: hunter3',
    ' tail',
  ]);
});

test('insertions and deletions keep the longest common subsequence', () => {
  assert.deepEqual(show('a\nb\nc\nd', 'a\nc\nd\ne'), [' a', '-b', ' c', ' d', '+e']);
  assert.deepEqual(show('x\ny', ''), ['-x', '-y']);
});

test('line numbers are 1-based on each side', () => {
  const ops = diffLines(['a', 'b', 'c'], ['a', 'X', 'c']);
  assert.deepEqual(
    ops.map((o) => [o.kind, o.left, o.right]),
    [
      ['same', 1, 1],
      ['del', 2, undefined],
      ['add', undefined, 2],
      ['same', 3, 3],
    ],
  );
});

test('very large inputs degrade to remove-all/add-all instead of a quadratic table', () => {
  const n = Math.ceil(Math.sqrt(MAX_CELLS)) + 10;
  const a = Array.from({ length: n }, (_, i) => `a${i}`);
  const b = Array.from({ length: n }, (_, i) => `b${i}`);
  const ops = diffLines(a, b);
  assert.equal(ops.length, 2 * n);
  assert.equal(ops[0]?.kind, 'del');
  assert.equal(ops[n]?.kind, 'add');
});

test('CRLF and LF compare equal', () => {
  assert.deepEqual(show('a\r\nb', 'a\nb'), [' a', ' b']);
});
