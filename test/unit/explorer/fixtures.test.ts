import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTrace } from '../../../common/trace/schema';
import { makeBigTrace, NEEDLE, needleLine } from '../../fixtures/traces/bigTrace';

const dir = join(__dirname, '..', '..', 'fixtures', 'traces');

test('every trace fixture is a valid trace', () => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.hudtrace.json'));
  assert.ok(files.length >= 4);
  for (const f of files) {
    const r = parseTrace(JSON.parse(readFileSync(join(dir, f), 'utf8')));
    assert.ok(r.ok, `${f}: ${r.ok ? '' : r.error}`);
  }
});

test('the generated big trace is valid and holds the needle once, where expected', () => {
  const t = makeBigTrace(1000);
  assert.ok(parseTrace(t).ok);
  const logs = t.phases[0]?.logs ?? [];
  assert.equal(logs.length, 1000);
  const hits = logs.flatMap((l, i) => (l.text.includes(NEEDLE) ? [i] : []));
  assert.deepEqual(hits, [needleLine(1000)]);
});
