import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoundedLog, CUT_MARK } from '../../../../client/src/engine/trace/boundedLog';
import { EventHub } from '../../../../common/events';
import { TraceRecorder } from '../../../../client/src/engine/trace/builder';
import { readTrace } from '../../../../client/src/engine/trace/store';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-unit-boundedlog-'));
process.on('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));

test('a short log is kept whole and opens no side file', () => {
  let opened = 0;
  const log = new BoundedLog(() => ((opened += 1), undefined), 1000, 1000);
  for (let i = 0; i < 5; i++) log.push({ t: i, stream: 'stdout', text: `line ${i}` });
  assert.deepEqual(
    log.entries().map((e) => e.text),
    ['line 0', 'line 1', 'line 2', 'line 3', 'line 4'],
  );
  assert.equal(opened, 0);
  assert.equal(log.cut, undefined);
});

test('a long log keeps head and tail around one marked cut, and the spill gets every line in order', () => {
  const spilled: string[] = [];
  const log = new BoundedLog(() => ({ write: (e) => void spilled.push(e.text) }), 700, 700);
  for (let i = 0; i < 1000; i++) log.push({ t: i, stream: 'stdout', text: `line ${i}` });
  const kept = log.entries().map((e) => e.text);
  assert.equal(kept[0], 'line 0');
  assert.equal(kept[kept.length - 1], 'line 999');
  const marks = kept.filter((t) => t.startsWith(CUT_MARK));
  assert.equal(marks.length, 1);
  assert.match(marks[0]!, /cut \d+ lines/);
  assert.ok(kept.length < 30, `kept ${kept.length}`);
  assert.equal(kept.length - 1 + log.cut!.lines, 1000);
  assert.deepEqual(
    spilled,
    Array.from({ length: 1000 }, (_, i) => `line ${i}`),
  );
});

test('a rollout log past the budget goes whole to a side file the trace names', () => {
  const dir = join(SCRATCH, 'traces');
  const heard: number[] = [];
  const hub = new EventHub();
  hub.on((e) => void (e.type === 'log' && heard.push(e.text.length)));
  const recorder = new TraceRecorder(
    {
      rolloutId: 'r-side-1234',
      taskRef: 'env.py::t',
      agent: { kind: 'nop' },
      provider: { kind: 'local' },
      traceDir: dir,
    },
    hub,
  );
  const line = 'x'.repeat(1000);
  const lines = 10_000; // 10 MB: past the 4 MB kept in the trace
  for (let i = 0; i < lines; i++)
    recorder.emit({ type: 'log', phase: 'actor', stream: 'stdout', text: `${i} ${line}` });
  const { tracePath } = recorder.end({ status: 'completed', result: null, error: null });
  assert.equal(heard.length, lines, 'listeners hear every line');
  assert.ok(tracePath);
  const path = tracePath;
  const back = readTrace(path);
  const actor = back.phases.find((p) => p.name === 'actor')!;
  assert.ok(actor.logFile, 'the phase names its side file');
  assert.ok(readFileSync(path, 'utf8').length < 6 * 1024 * 1024);
  const whole = readFileSync(join(dir, actor.logFile), 'utf8').split('\n');
  assert.equal(whole.length, lines + 1);
  assert.equal(whole[lines - 1], `${lines - 1} ${line}`);
  assert.ok(actor.logs.some((l) => l.text.startsWith(CUT_MARK)));
  assert.ok(!readdirSync(dir).some((n) => n.endsWith('.partial')), 'no partial folder is left');
});
