import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_SECRET_CHARS, Redactor } from '../../../client/src/engine/trace/redact';

test('redacts every occurrence of each declared value in strings and keys, longest first', () => {
  const r = new Redactor([{ KEY: 'abcd1234' }, { LONG: 'abcd1234-extended', SHORT: 'x'.repeat(MIN_SECRET_CHARS - 1) }]);
  const out = r.deep({ a: 'pre abcd1234 post abcd1234-extended', ['k-abcd1234']: ['abcd1234', 3, null], n: 'xxx' });
  assert.deepEqual(out, {
    a: 'pre [redacted KEY] post [redacted LONG]',
    ['k-[redacted KEY]']: ['[redacted KEY]', 3, null],
    n: 'xxx',
  });
});

test('no declared secrets: values pass through untouched', () => {
  const v = { a: 'text' };
  assert.equal(new Redactor([]).deep(v), v);
});
