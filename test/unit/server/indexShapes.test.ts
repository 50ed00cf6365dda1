/**
 * One module holding every module-level shape the index reads (lists grown
 * in place, loops read whole, comprehensions with filters, factories,
 * chained and deleted names, an explicit Task): the index lists exactly
 * what the bundled runtime's discovery lists when it runs it. The fuzz
 * tests mutate the same fixture (test/unit/fuzz/inputs.fuzz.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { agrees } from './discovery';

const SHAPES = readFileSync(join(__dirname, '..', '..', 'fixtures', 'python', 'index_shapes', 'env.py'), 'utf8');

test('every shape the index reads, in one module: the index lists what discovery lists', async () => {
  const found = await agrees(SHAPES);
  // Names that share one Task (`alias = hard`, a loop's target) make `hud eval` refuse the file: said, and only that.
  assert.deepEqual([...new Set(found.problems.map((p) => p.code))], ['task-duplicate-slug']);
  // Each reader has its part: a list of fewer would mean a shape fell silent and no longer checks anything.
  const refs = found.rows.map((r) => r.ref);
  for (const ref of ['easy', 'first', 'suite[4]', 't', 'built[2]', 'b', 'kept[2]', 'pairs[0]', 'nested[1]', 'm', 'e'])
    assert.ok(refs.includes(ref), `${ref} is listed`);
});
