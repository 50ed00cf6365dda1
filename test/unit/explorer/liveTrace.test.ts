import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RolloutEvent } from '../../../client/src/engine/events';
import { parseTrace, type TaskIdentity } from '../../../client/src/engine/trace/schema';
import { applyRolloutEvent, type LiveTrace } from '../../../client/src/explorer/liveTrace';

const at = (s: number) => new Date(Date.parse('2026-11-29T10:00:00.000Z') + s * 1000).toISOString();
const rolloutId = 'r-live';
const task: TaskIdentity = { ref: 'env.py::task', kind: 'hud', env: 'workspace', id: 'solve', args: {}, slug: 'solve-1', sourceHash: 'h' };
const verifier: TaskIdentity = { ...task, env: 'judge', id: 'verify', slug: 'verify-1' };
const grade = { reward: 0.5, subscores: [{ name: 'a', value: 0.5, weight: 1 }], info: {}, isError: false };

function run(events: RolloutEvent[]): LiveTrace | null {
  let t: LiveTrace | null = null;
  for (const e of events) t = applyRolloutEvent(t, e);
  return t;
}

const full: RolloutEvent[] = [
  { type: 'rollout.queued', rolloutId, at: at(0), taskRef: 'env.py::task', jobId: 'j1' },
  { type: 'rollout.started', rolloutId, at: at(0), task, verifier },
  { type: 'phase.started', rolloutId, at: at(0.1), phase: 'actor', substrate: { id: 'c1', provider: 'docker', isolation: 'container' }, reused: false },
  { type: 'step', rolloutId, at: at(0.1), phase: 'actor', step: 'setup', status: 'started' },
  { type: 'log', rolloutId, at: at(0.5), phase: 'actor', stream: 'stdout', text: 'hello' },
  { type: 'step', rolloutId, at: at(1), phase: 'actor', step: 'setup', status: 'completed' },
  { type: 'prompt', rolloutId, at: at(1), prompt: { prompt: 'do it' } },
  { type: 'agent.step', rolloutId, at: at(2), index: 1, text: 'thinking', toolCalls: [{ name: 'bash', input: 'ls', output: 'x' }] },
  { type: 'answer', rolloutId, at: at(3), answer: 'done' },
  { type: 'grade', rolloutId, at: at(3.5), phase: 'actor', result: { ...grade, reward: 1 }, raw: { score: 1, answer: 'done' }, authoritative: false },
  { type: 'phase.ended', rolloutId, at: at(4), phase: 'actor', status: 'completed' },
  { type: 'phase.started', rolloutId, at: at(4.1), phase: 'verifier', substrate: { id: 'c2', provider: 'docker', isolation: 'container' }, reused: false },
  { type: 'grade', rolloutId, at: at(5), phase: 'verifier', result: grade, raw: { score: 0.5 }, authoritative: true },
  { type: 'phase.ended', rolloutId, at: at(5.5), phase: 'verifier', status: 'completed' },
  { type: 'rollout.ended', rolloutId, at: at(6), status: 'completed', reward: 0.5, result: grade, tracePath: undefined, error: null },
];

test('a full event stream builds a trace that is valid in the file format', () => {
  const t = run(full);
  assert.ok(t);
  assert.equal(t.status, 'completed');
  const parsed = parseTrace(t);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  assert.equal(t.jobId, 'j1');
  assert.equal(t.task.env, 'workspace');
  assert.equal(t.verifier?.id, 'verify');
  assert.equal(t.provider.kind, 'docker');
  assert.equal(t.provider.verifierSubstrate, 'fresh');
  assert.deepEqual(t.phases.map((p) => [p.name, p.status]), [['actor', 'completed'], ['verifier', 'completed']]);
  assert.deepEqual(t.phases[0]?.steps.map((s) => [s.step, s.status, s.endedAt]), [['setup', 'completed', at(1)]]);
  assert.deepEqual(t.phases[0]?.logs, [{ t: 500, stream: 'stdout', text: 'hello' }]);
  assert.equal(t.phases[0]?.grade?.reward, 1);
  assert.deepEqual(t.actorResult, { score: 1, answer: 'done' });
  assert.equal(t.result?.reward, 0.5, 'the authoritative (verifier) grade is the result');
  assert.equal(t.durationMs, 6000);
  assert.equal(t.agentSteps.length, 1);
});

test('while running the status is "running" and the provisional grade is not the result', () => {
  const t = run(full.slice(0, 10));
  assert.equal(t?.status, 'running');
  assert.equal(t?.result, null);
});

test('a reused or borrowed verifier substrate is recorded as such', () => {
  const reused = run([...full.slice(0, 11), { type: 'phase.started', rolloutId, at: at(4.1), phase: 'verifier', substrate: null, reused: true }]);
  assert.equal(reused?.provider.verifierSubstrate, 'reused');
  const borrowed = run([...full.slice(0, 11), { type: 'phase.started', rolloutId, at: at(4.1), phase: 'verifier', substrate: { id: 'tcp://127.0.0.1:9', provider: 'url', isolation: 'borrowed' }, reused: true }]);
  assert.equal(borrowed?.provider.verifierSubstrate, 'borrowed');
  assert.equal(borrowed?.provider.kind, 'url');
});

test('events of another rollout are ignored; nothing starts without a start event', () => {
  const t = run(full.slice(0, 3));
  const after = applyRolloutEvent(t, { type: 'log', rolloutId: 'other', at: at(1), phase: 'actor', stream: 'stdout', text: 'intruder' });
  assert.equal(after?.phases[0]?.logs.length, 0);
  assert.equal(applyRolloutEvent(null, { type: 'log', rolloutId, at: at(1), phase: 'actor', stream: 'stdout', text: 'x' }), null);
});

test('a log before its phase started still lands in that phase; an error ends the rollout errored', () => {
  const t = run([
    full[1] as RolloutEvent,
    { type: 'log', rolloutId, at: at(0.2), phase: 'verifier', stream: 'stderr', text: 'early' },
    { type: 'step', rolloutId, at: at(0.3), phase: 'verifier', step: 'grade', status: 'error', detail: 'boom' },
    { type: 'phase.ended', rolloutId, at: at(0.4), phase: 'verifier', status: 'error', error: 'boom' },
    { type: 'rollout.ended', rolloutId, at: at(0.5), status: 'error', reward: null, result: null, tracePath: undefined, error: { phase: 'verifier', message: 'boom' } },
  ]);
  assert.ok(t);
  assert.equal(t.phases[0]?.name, 'verifier');
  assert.equal(t.phases[0]?.logs[0]?.text, 'early');
  assert.deepEqual(t.phases[0]?.steps[0], { step: 'grade', startedAt: at(0.3), endedAt: at(0.3), status: 'error', detail: 'boom' });
  assert.equal(t.phases[0]?.error, 'boom');
  assert.deepEqual(t.error, { phase: 'verifier', message: 'boom' });
  assert.ok(parseTrace(t).ok);
});
