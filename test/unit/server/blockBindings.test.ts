/**
 * The names a compound statement may bind at module level, read from its
 * text (analysis/blockBindings.ts): the index treats each as bound again
 * there, since only running the module tells whether the block runs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { namesAssignedIn } from '../../../server/src/analysis/blockBindings';
import { py } from './helpers';

const names = (source: string) => namesAssignedIn(source, { start: 0, end: source.length });

test('assignment targets, loop targets, as-names, del, and definitions in any block', () => {
  assert.deepEqual(
    names(py`
      if ready:
          a = solve(level=1)
          b, c = make()
          (d, e) = pair
          f: int = 1
          g += 1
          h = i = None
      elif other: j = 2
      else:
          for k, m in items:
              n //= 2
      `),
    ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'm', 'n'],
  );
  assert.deepEqual(
    names(py`
      try:
          with open(p) as fh, lock() as held:
              del old, gone
      except (KeyError, ValueError) as err:
          pass
      finally:
          async def later():
              inside = 1
          class Box:
              field = 2
          after = 3
      `),
    ['fh', 'held', 'old', 'gone', 'err', 'later', 'Box', 'after'],
  );
});

test('what binds nothing: comparisons, items, attributes, keyword arguments on continuation lines, strings', () => {
  assert.deepEqual(
    names(py`
      while x == 1:
          items[0] = solve(level=1)
          task.verifier = check(expected="a")
          run(
              level=2,
              name="b = 1",
          )
          print("c = 2")  # d = 3
      `),
    [],
  );
});
