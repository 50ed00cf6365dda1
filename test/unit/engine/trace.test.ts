import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RolloutEvent } from '../../../common/events';
import { finishedTrace, foldRolloutEvents } from '../../../common/trace/fold';
import { parseTrace, type TaskIdentity } from '../../../common/trace/schema';
import { readTrace, traceFileName, writeFileAtomic, writeTrace } from '../../../client/src/engine/trace/store';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-unit-engine-'));
process.on('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));

const task: TaskIdentity = {
  ref: 'env.py::task',
  kind: 'hud',
  env: 'workspace',
  id: 'solve',
  args: {},
  slug: 'solve-bf21a9e8',
  sourceHash: 'abc',
  source: 'async def solve(): ...',
};
const verifier: TaskIdentity = { ...task, env: 'judge', id: 'verify', slug: 'verify-1', args: { expected: 'secret' } };
const sub = (id: string) => ({ id, provider: 'local' as const, isolation: 'process' as const });

function events(): RolloutEvent[] {
  const rolloutId = 'r1234567-aaaa';
  const at = (ms: number): string => new Date(Date.UTC(2026, 10, 29, 20, 0, 0, ms)).toISOString();
  const raw = { score: 0, answer: 'secret', extra: [1] };
  type WithoutId = RolloutEvent extends infer E ? (E extends RolloutEvent ? Omit<E, 'rolloutId'> : never) : never;
  const list: WithoutId[] = [
    {
      type: 'rollout.queued',
      at: at(0),
      taskRef: 'env.py::task',
      agent: { kind: 'fixed', detail: 'fixed: secret' },
      provider: { kind: 'local' },
    },
    { type: 'log', at: at(1), phase: 'actor', stream: 'engine', text: 'preparing' },
    { type: 'rollout.started', at: at(2), task, verifier },
    { type: 'phase.started', at: at(3), phase: 'actor', substrate: sub('a'), reused: false },
    { type: 'step', at: at(4), phase: 'actor', step: 'prompt', status: 'started' },
    { type: 'step', at: at(5), phase: 'actor', step: 'prompt', status: 'completed' },
    { type: 'prompt', at: at(5), prompt: { prompt: 'Write the secret' } },
    {
      type: 'agent.step',
      at: at(6),
      index: 0,
      text: 'thinking',
      toolCalls: [{ name: 'shell', input: 'echo', output: 'x' }],
    },
    { type: 'answer', at: at(7), answer: 'secret' },
    {
      type: 'grade',
      at: at(8),
      phase: 'actor',
      result: { reward: 0, subscores: [], info: {}, isError: false },
      raw,
      authoritative: false,
    },
    { type: 'log', at: at(9), phase: 'actor', stream: 'stderr', text: 'server says bye' },
    { type: 'phase.ended', at: at(10), phase: 'actor', status: 'completed' },
    { type: 'phase.started', at: at(11), phase: 'verifier', substrate: sub('b'), reused: false },
    { type: 'warning', at: at(11), phase: 'verifier', message: 'careful' },
    { type: 'step', at: at(12), phase: 'verifier', step: 'grade', status: 'started' },
    {
      type: 'grade',
      at: at(13),
      phase: 'verifier',
      result: { reward: 1, subscores: [{ name: 'a', value: 1, weight: 1 }], info: { saw: false }, isError: false },
      raw: { score: 1 },
      authoritative: true,
    },
  ];
  return list.map((e) => ({ ...e, rolloutId }));
}

const ending = (status: 'completed' | 'error', ms: number): RolloutEvent => ({
  type: 'rollout.ended',
  rolloutId: 'r1234567-aaaa',
  at: new Date(Date.UTC(2026, 10, 29, 20, 0, 0, ms)).toISOString(),
  status,
  reward: status === 'completed' ? 1 : null,
  result: status === 'completed' ? { reward: 1, subscores: [], info: {}, isError: false } : null,
  tracePath: undefined,
  error: status === 'completed' ? null : { phase: 'setup', message: 'boom' },
});

function build() {
  const folded = foldRolloutEvents([...events(), ending('completed', 1000)]);
  const trace = folded && finishedTrace(folded);
  assert.ok(trace);
  return trace;
}

describe('trace fold', () => {
  test('builds a valid trace with phases, logs, steps, the raw actor result and the answer', () => {
    const trace = build();
    const parsed = parseTrace(JSON.parse(JSON.stringify(trace)));
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
    assert.equal(trace.task.sourceHash, 'abc');
    assert.equal(trace.provider.verifierSubstrate, 'fresh');
    assert.deepEqual(trace.actorResult, { score: 0, answer: 'secret', extra: [1] });
    assert.equal(trace.answer, 'secret');
    assert.deepEqual(
      trace.phases.map((p) => [p.name, p.substrate?.id, p.status]),
      [
        ['actor', 'a', 'completed'],
        ['verifier', 'b', 'completed'],
      ],
    );
    // Logs that came before phase.started still belong to the phase; t is relative to the start.
    assert.deepEqual(
      trace.phases[0]!.logs.map((l) => [l.t, l.text]),
      [
        [1, 'preparing'],
        [9, 'server says bye'],
      ],
    );
    assert.deepEqual(
      trace.phases[0]!.steps.map((s) => [s.step, s.status]),
      [['prompt', 'completed']],
    );
    // A phase still running when the rollout ends takes the rollout's status; so do its open steps.
    assert.equal(trace.phases[1]!.steps[0]!.status, 'completed');
    assert.equal(trace.phases[1]!.grade?.reward, 1);
    assert.deepEqual(trace.warnings, ['careful']);
    assert.equal(trace.agentSteps[0]!.toolCalls[0]!.name, 'shell');
    assert.ok(trace.events.some((e) => e.type === 'grade' && e.phase === 'verifier'));
    assert.ok(!trace.events.some((e) => e.type === 'log'), 'logs are kept per phase, not in events');
    assert.equal(trace.durationMs, 1000);
  });

  test('before discovery the trace still names what the user asked for', () => {
    const queued: RolloutEvent = {
      type: 'rollout.queued',
      rolloutId: 'r1234567-aaaa',
      at: events()[0]!.at,
      taskRef: 'env.py::mine',
      provider: { kind: 'url' },
    };
    const folded = foldRolloutEvents([queued, ending('error', 5)]);
    const t = folded && finishedTrace(folded);
    assert.ok(t);
    assert.equal(t.task.ref, 'env.py::mine');
    assert.equal(t.task.slug, 'mine');
    assert.equal(t.provider.verifierSubstrate, 'none');
    assert.deepEqual(t.error, { phase: 'setup', message: 'boom' });
    assert.ok(parseTrace(t).ok);
  });
});

describe('trace store', () => {
  test('writes atomically under a sortable name and reads back the same trace', () => {
    const dir = join(mkdtempSync(join(SCRATCH, 'hs-trace-')), 'nested', 'traces');
    const trace = build();
    const path = writeTrace(dir, trace);
    assert.equal(path, join(dir, '20261129T200000000Z-solve-bf21a9e8-r1234567.hudtrace.json'));
    assert.deepEqual(
      readdirSync(dir),
      ['20261129T200000000Z-solve-bf21a9e8-r1234567.hudtrace.json'],
      'no temporary file is left',
    );
    assert.deepEqual(
      readTrace(path),
      parseTrace(JSON.parse(readFileSync(path, 'utf8'))).ok ? JSON.parse(readFileSync(path, 'utf8')) : null,
    );
    assert.deepEqual(readTrace(path).actorResult, trace.actorResult);
  });

  test('slugs are made safe for file names', () => {
    const name = traceFileName({
      startedAt: '2026-01-02T03:04:05.006Z',
      rolloutId: 'abcdef0123',
      task: { ...task, slug: '../../etc/pass wd' },
    });
    assert.equal(name, '20260102T030405006Z-etc_pass_wd-abcdef01.hudtrace.json');
  });

  test('a failed write leaves the old file untouched and no temporary file behind', () => {
    const dir = mkdtempSync(join(SCRATCH, 'hs-atomic-'));
    const target = join(dir, 'file.json');
    writeFileSync(target, 'old');
    writeFileAtomic(target, 'new');
    assert.equal(readFileSync(target, 'utf8'), 'new');
    const blocked = join(dir, 'is-a-dir');
    mkdirSync(join(blocked, 'child'), { recursive: true });
    assert.throws(() => writeFileAtomic(blocked, 'x'));
    assert.deepEqual(readdirSync(dir).sort(), ['file.json', 'is-a-dir']);
  });

  test('an invalid trace is refused and a corrupt file is reported by name', () => {
    const dir = mkdtempSync(join(SCRATCH, 'hs-bad-'));
    const bad = { ...build(), status: 'weird' } as unknown as Parameters<typeof writeTrace>[1];
    assert.throws(() => writeTrace(dir, bad), /refusing to write an invalid trace: .*status/);
    const corrupt = join(dir, 'x.hudtrace.json');
    writeFileSync(corrupt, '{"schemaVersion": 1');
    assert.throws(
      () => readTrace(corrupt),
      (e: Error) => e.message.includes(corrupt),
    );
  });
});
