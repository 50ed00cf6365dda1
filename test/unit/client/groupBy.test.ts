/** groupBy (client/src/groupBy.ts): groups in the order their keys first come, items in their own order. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupBy } from '../../../client/src/groupBy';

test('groups keep the order of first appearance, and each keeps its items in order', () => {
  const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]);
  assert.deepEqual(
    [...groups],
    [
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ],
  );
  assert.equal(groupBy([], (s: string) => s).size, 0);
});
