import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RolloutEvent } from '../../../common/events';
import { parseRunningTrace, parseTrace } from '../../../common/trace/schema';
import { LiveRollouts } from '../../../client/src/explorer/liveRollouts';

const rolloutId = 'r-host';
const at = (ms: number) => new Date(Date.parse('2026-11-30T10:00:00.000Z') + ms).toISOString();
const task = { ref: 'env.py::task', kind: 'hud' as const, env: 'w', id: 't', args: {}, slug: 't-1', sourceHash: 'h' };
const running: RolloutEvent[] = [
  {
    type: 'rollout.queued',
    rolloutId,
    at: at(0),
    taskRef: task.ref,
    agent: { kind: 'nop' },
    provider: { kind: 'local' },
  },
  { type: 'rollout.started', rolloutId, at: at(5), task, verifier: null },
  { type: 'log', rolloutId, at: at(9), phase: 'actor', stream: 'stdout', text: 'hi' },
];

test('a panel on a running rollout gets the running message, on every ready', () => {
  const live = new LiveRollouts();
  for (const e of running) live.apply(e);
  assert.ok(live.isRunning(rolloutId));
  const first = live.snapshot(rolloutId);
  assert.equal(first.type, 'running');
  const trace = first.type === 'running' ? first.trace : undefined;
  assert.ok(parseRunningTrace(trace).ok);
  assert.equal(parseTrace(trace).ok, false, 'the finished-trace schema would have refused it');

  // A hidden panel shown again sends ready again: the answer is the rollout so far, not an error.
  live.apply({ type: 'log', rolloutId, at: at(20), phase: 'actor', stream: 'stdout', text: 'while hidden' });
  const again = live.snapshot(rolloutId);
  assert.equal(again.type, 'running');
  const logs = again.type === 'running' ? parseRunningTrace(again.trace) : undefined;
  assert.ok(logs?.ok);
  assert.deepEqual(
    logs.trace.phases[0]?.logs.map((l) => l.text),
    ['hi', 'while hidden'],
  );
});

test('after the end the same message carries a finished trace; a forgotten rollout says where to look', () => {
  const live = new LiveRollouts();
  for (const e of running) live.apply(e);
  live.apply({
    type: 'rollout.ended',
    rolloutId,
    at: at(30),
    status: 'completed',
    reward: 1,
    result: null,
    tracePath: undefined,
    error: null,
  });
  assert.equal(live.isRunning(rolloutId), false);
  const m = live.snapshot(rolloutId);
  assert.ok(m.type === 'running' && parseTrace(m.trace).ok);
  live.forget(rolloutId);
  const gone = live.snapshot(rolloutId);
  assert.equal(gone.type, 'loadError');
});
