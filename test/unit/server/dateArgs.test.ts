/**
 * The language server's verdict on a text literal for a `date`, `datetime`
 * or `time` parameter agrees with the bundled runtime's conversion (itself
 * checked against pydantic in test/python/test_convert_dates.py), run in the
 * real python3: what the server calls a fit converts, what it flags stays
 * text, and only numbers, number-like and JSON-quoted text go unjudged.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { judgeDateLike, type DateKind } from '../../../server/src/analysis/dateArgs';
import { py, workspace } from './helpers';

const RUNTIME = join(__dirname, '..', '..', '..', 'runtime', 'python');

const TEXTS = [
  '2032-04-23',
  '2032-04-23T10:20:30',
  '2032-04-23 10:20',
  '2032-04-23_10:20',
  '2032-04-23t10:20:30z',
  '2032-04-23T10:20:30.5Z',
  '2032-04-23T10:20:30+02:00',
  '2032-04-23T10:20:30+0200',
  '2032-04-23T10:20:30-02',
  '2032-04-23T10:20:30+24:00',
  '2032-04-23T10:20:30,5',
  '2032-04-23T10:20:30.',
  '2032-04-23T10',
  '2032-04-23T1:20',
  '2032-04-23T24:00:00',
  '2032-04-23T10:20:60',
  '2032-04-23T00:00:00+05:00',
  '2032-04-23T00:00:00.000001',
  '2032-04-23T00:00:00.0000001',
  '2032-04-23T00:00',
  '2032-04-23Z',
  '2032-04-23 ',
  ' 2032-04-23',
  '2032-4-23',
  '2032-02-30',
  '2024-02-29',
  '2023-02-29',
  '1900-02-29',
  '2000-02-29',
  '2032-13-01',
  '0000-01-01',
  '0001-01-01',
  '2032-04-31',
  '10:20',
  '10:20:30',
  '10:20:30.25',
  '10:20:30,5',
  '10:20:30Z',
  '10:20:30+01:00',
  '10:20:30+0100',
  '10:20:30-01',
  '10:20:30 Z',
  '10:20:30+2400',
  '10:20:30.',
  '24:00',
  '23:59:60',
  '10:2',
  '1:20',
  'noon',
  'April 23, 2032',
  '23/04/2032',
  '',
  'now',
  '1700000000',
  '1700000000.5',
  '3600',
  ' 3600 ',
  '1e3',
  '-1',
  '"2032-04-23"',
  '"10:20"',
  '"x"',
  'null',
  'true',
];

function pythonConverts(kind: DateKind, texts: string[]): boolean[] {
  const script = [
    'import datetime, json, sys',
    'from hud.environment.convert import convert_or_keep',
    'kind = getattr(datetime, sys.argv[1])',
    'texts = json.load(sys.stdin)',
    'print(json.dumps([isinstance(convert_or_keep(kind, t), kind) for t in texts]))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, kind], {
    input: JSON.stringify(texts),
    env: { ...process.env, PYTHONPATH: RUNTIME },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as boolean[];
}

for (const kind of ['date', 'datetime', 'time'] as const) {
  test(`${kind}: the server's verdict on text agrees with the runtime's conversion`, () => {
    const converts = pythonConverts(kind, TEXTS);
    let judged = 0;
    TEXTS.forEach((text, i) => {
      const verdict = judgeDateLike(kind, { kind: 'str', value: text });
      if (verdict === 'unknown') return;
      judged++;
      assert.equal(verdict === 'ok', converts[i], `${kind} ${JSON.stringify(text)}: server ${JSON.stringify(verdict)}`);
    });
    assert.ok(judged >= TEXTS.length - 14, `only number-like and JSON-quoted text goes unjudged (${judged} judged)`);
  });
}

test('booleans and None never convert; numbers are left to the runtime', () => {
  for (const kind of ['date', 'datetime', 'time'] as const) {
    assert.equal(typeof judgeDateLike(kind, { kind: 'bool', value: 'True' }), 'object');
    assert.equal(typeof judgeDateLike(kind, { kind: 'none', value: 'None' }), 'object');
    assert.equal(judgeDateLike(kind, { kind: 'int', value: '86400' }), 'unknown');
  }
});

test('task-arg-type fires for a date the SDK cannot read, and not for one it can', async () => {
  const ws = await workspace({
    'env.py': py`
      import datetime
      from typing import Optional

      from hud import Environment

      env = Environment("calendar")

      @env.template()
      async def weekday(day: datetime.date, at: Optional[datetime.time] = None):
          answer = yield f"Which weekday is {day}?"
          yield 1.0

      good = weekday("2032-04-23", at="10:20")
      bad = weekday(day="2032-02-30", at="noon")
    `,
  });
  const messages = ws.problems('env.py').map((p) => `${p.code} ${p.message}`);
  assert.equal(messages.length, 2, messages.join('\n'));
  assert.match(messages[0]!, /^task-arg-type .*day="2032-02-30" is not a date \(YYYY-MM-DD\)/);
  assert.match(messages[1]!, /^task-arg-type .*at="noon" is not a time/);
});
