import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RolloutEvent } from '../../../common/events';
import { foldRolloutEvent, foldRolloutEvents } from '../../../common/trace/fold';
import { parseRunningTrace, parseTrace, type TaskIdentity } from '../../../common/trace/schema';

const at = (s: number) => new Date(Date.parse('2026-11-29T10:00:00.000Z') + s * 1000).toISOString();
const rolloutId = 'r-live';
const task: TaskIdentity = {
  ref: 'env.py::task',
  kind: 'hud',
  env: 'workspace',
  id: 'solve',
  args: {},
  slug: 'solve-1',
  sourceHash: 'h',
};
const verifier: TaskIdentity = { ...task, env: 'judge', id: 'verify', slug: 'verify-1' };
const grade = { reward: 0.5, subscores: [{ name: 'a', value: 0.5, weight: 1 }], info: {}, isError: false };
const docker = (id: string) => ({ id, provider: 'docker' as const, isolation: 'container' as const });

const full: RolloutEvent[] = [
  {
    type: 'rollout.queued',
    rolloutId,
    at: at(0),
    taskRef: 'env.py::task',
    jobId: 'j1',
    agent: { kind: 'fixed', detail: 'fixed: done' },
    provider: { kind: 'docker' },
  },
  { type: 'rollout.started', rolloutId, at: at(0.05), task, verifier },
  { type: 'phase.started', rolloutId, at: at(0.1), phase: 'actor', substrate: docker('c1'), reused: false },
  { type: 'step', rolloutId, at: at(0.1), phase: 'actor', step: 'setup', status: 'started' },
  { type: 'log', rolloutId, at: at(0.5), phase: 'actor', stream: 'stdout', text: 'hello' },
  { type: 'step', rolloutId, at: at(1), phase: 'actor', step: 'setup', status: 'completed' },
  { type: 'prompt', rolloutId, at: at(1), prompt: { prompt: 'do it' } },
  {
    type: 'agent.step',
    rolloutId,
    at: at(2),
    index: 1,
    text: 'thinking',
    toolCalls: [{ name: 'bash', input: 'ls', output: 'x' }],
  },
  { type: 'answer', rolloutId, at: at(3), answer: 'done' },
  {
    type: 'grade',
    rolloutId,
    at: at(3.5),
    phase: 'actor',
    result: { ...grade, reward: 1 },
    raw: { score: 1, answer: 'done' },
    authoritative: false,
  },
  { type: 'phase.ended', rolloutId, at: at(4), phase: 'actor', status: 'completed' },
  { type: 'phase.started', rolloutId, at: at(4.1), phase: 'verifier', substrate: docker('c2'), reused: false },
  { type: 'step', rolloutId, at: at(4.2), phase: 'verifier', step: 'grade', status: 'started' },
  { type: 'warning', rolloutId, at: at(4.3), phase: 'verifier', message: 'no network' },
  { type: 'warning', rolloutId, at: at(4.4), phase: 'verifier', message: 'no network' },
  { type: 'grade', rolloutId, at: at(5), phase: 'verifier', result: grade, raw: { score: 0.5 }, authoritative: true },
  {
    type: 'rollout.ended',
    rolloutId,
    at: at(6),
    status: 'completed',
    reward: 0.5,
    result: grade,
    tracePath: undefined,
    error: null,
  },
];

test('a full event stream folds into a trace that is valid in the file format', () => {
  const t = foldRolloutEvents(full);
  assert.ok(t);
  const parsed = parseTrace(t);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  assert.equal(t.startedAt, at(0), 'the rollout starts when it is asked for');
  assert.equal(t.durationMs, 6000);
  assert.deepEqual(t.agent, { kind: 'fixed', detail: 'fixed: done' });
  assert.equal(t.jobId, 'j1');
  assert.equal(t.provider.kind, 'docker');
  assert.equal(t.provider.verifierSubstrate, 'fresh');
  assert.deepEqual(
    t.phases.map((p) => [p.name, p.status]),
    [
      ['actor', 'completed'],
      ['verifier', 'completed'],
    ],
  );
  assert.deepEqual(t.phases[0]?.logs, [{ t: 500, stream: 'stdout', text: 'hello' }]);
  assert.deepEqual(
    t.phases[1]?.steps.map((s) => [s.step, s.status, s.endedAt]),
    [['grade', 'completed', at(6)]],
    'the end closes open steps',
  );
  assert.deepEqual(t.actorResult, { score: 1, answer: 'done' });
  assert.equal(t.result?.reward, 0.5);
  assert.deepEqual(t.warnings, ['no network'], 'a warning raised twice is one problem');
  assert.equal(t.events.filter((e) => e.type === 'warning').length, 2, 'the event list still shows both');
  assert.ok(!t.events.some((e) => e.type === 'log'), 'logs are kept per phase, not in events');
  assert.deepEqual(t.events[0], { at: at(0), type: 'rollout.queued', message: 'env.py::task' });
});

test('while running the trace has its own schema: the file schema rejects it', () => {
  const t = foldRolloutEvents(full.slice(0, 10));
  assert.equal(t?.status, 'running');
  assert.equal(t?.result, null, 'a provisional grade is not the result');
  assert.ok(parseRunningTrace(t).ok);
  assert.equal(parseTrace(t).ok, false);
});

test('a reused or borrowed verifier substrate is recorded as such', () => {
  const reused = foldRolloutEvents([
    ...full.slice(0, 11),
    { type: 'phase.started', rolloutId, at: at(4.1), phase: 'verifier', substrate: null, reused: true },
  ]);
  assert.equal(reused?.provider.verifierSubstrate, 'reused');
  const borrowedSub = { id: 'tcp://127.0.0.1:9', provider: 'url' as const, isolation: 'borrowed' as const };
  const borrowed = foldRolloutEvents([
    ...full.slice(0, 11),
    { type: 'phase.started', rolloutId, at: at(4.1), phase: 'verifier', substrate: borrowedSub, reused: true },
  ]);
  assert.equal(borrowed?.provider.verifierSubstrate, 'borrowed');
});

test('events of another rollout, and events before any start, are ignored', () => {
  const t = foldRolloutEvents(full.slice(0, 3));
  const after = foldRolloutEvent(t, {
    type: 'log',
    rolloutId: 'other',
    at: at(1),
    phase: 'actor',
    stream: 'stdout',
    text: 'intruder',
  });
  assert.equal(after, t);
  assert.ok(!JSON.stringify(t).includes('intruder'));
  assert.equal(
    foldRolloutEvent(null, { type: 'log', rolloutId, at: at(1), phase: 'actor', stream: 'stdout', text: 'x' }),
    null,
  );
});

test('a stream whose queueing was missed starts at rollout.started', () => {
  const t = foldRolloutEvents(full.slice(1));
  assert.equal(t?.startedAt, at(0.05));
  assert.equal(t?.task.id, 'solve');
});
