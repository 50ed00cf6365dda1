/**
 * One fold, every consumer: the engine's trace writer, the trace explorer's
 * host, the Runs view and the CLI hear the same events and must hold what the
 * written file says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HumanRenderer } from '../../../client/src/cli/render';
import { EventHub } from '../../../common/events';
import { TraceRecorder } from '../../../client/src/engine/trace/builder';
import { parseTrace, type RunningTrace, type TaskIdentity, type Trace } from '../../../common/trace/schema';
import { LiveRollouts } from '../../../client/src/explorer/liveRollouts';
import { RunsModel } from '../../../client/src/runsModel';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-unit-fold-'));
process.on('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));

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

/** Waits until the clock has moved, so events that follow get a later timestamp than those before. */
function clockTick(): void {
  const start = Date.now();
  while (Date.now() <= start + 1) {
    // spin: the wait is for an observable change of the clock, a millisecond or two
  }
}

interface Consumers {
  hub: EventHub;
  explorer: LiveRollouts;
  runs: RunsModel;
  cli: HumanRenderer;
  printed: string[];
}

function consumers(): Consumers {
  const hub = new EventHub();
  const explorer = new LiveRollouts();
  const runs = new RunsModel();
  const printed: string[] = [];
  const cli = new HumanRenderer({ write: (s: string) => printed.push(s) });
  hub.on((e) => explorer.apply(e));
  hub.on((e) => runs.apply(e));
  hub.on(cli.listener);
  return { hub, explorer, runs, cli, printed };
}

function playRollout(recorder: TraceRecorder): void {
  clockTick();
  recorder.emit({ type: 'rollout.started', task, verifier });
  recorder.emit({
    type: 'phase.started',
    phase: 'actor',
    substrate: { id: 'p1', provider: 'local', isolation: 'process' },
    reused: false,
  });
  recorder.emit({ type: 'log', phase: 'actor', stream: 'stdout', text: 'hello' });
  recorder.emit({ type: 'warning', phase: 'actor', message: 'the verifier shares the actor substrate' });
  recorder.emit({ type: 'prompt', prompt: { prompt: 'do it' } });
  recorder.emit({ type: 'answer', answer: 'done' });
  recorder.emit({
    type: 'grade',
    phase: 'actor',
    result: { ...grade, reward: 1 },
    raw: { score: 1 },
    authoritative: false,
  });
  recorder.emit({ type: 'phase.ended', phase: 'actor', status: 'completed' });
  clockTick();
  recorder.emit({ type: 'phase.started', phase: 'verifier', substrate: null, reused: true });
  recorder.emit({ type: 'warning', phase: 'verifier', message: 'the verifier shares the actor substrate' });
  recorder.emit({ type: 'grade', phase: 'verifier', result: grade, raw: { score: 0.5 }, authoritative: true });
  clockTick();
}

const json = (t: RunningTrace | Trace | undefined): unknown => JSON.parse(JSON.stringify(t));
const withoutLogs = (t: unknown): unknown => {
  const copy = json(t as Trace) as Trace;
  for (const p of copy.phases) p.logs = [];
  return copy;
};

test('the explorer, the Runs view and the CLI hold exactly what the trace file says', () => {
  const c = consumers();
  const recorder = new TraceRecorder(
    {
      jobId: 'job-1',
      taskRef: 'env.py::task',
      agent: { kind: 'fixed', detail: 'fixed: done' },
      provider: { kind: 'local' },
      traceDir: SCRATCH,
    },
    c.hub,
  );
  playRollout(recorder);
  const { trace, tracePath } = recorder.end({ status: 'completed', result: grade, error: null });
  assert.ok(tracePath);
  const parsed = parseTrace(JSON.parse(readFileSync(tracePath, 'utf8')));
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.error);
  const file = json(parsed.trace) as Trace;

  const explorer = json(c.explorer.get(recorder.rolloutId)) as Trace;
  const cli = json(c.cli.traces.get(recorder.rolloutId)) as Trace;
  const runs = c.runs.rollout(recorder.rolloutId)?.trace;
  for (const [name, held] of [
    ['explorer', explorer],
    ['CLI', cli],
    ['Runs view', json(runs) as Trace],
  ] as const) {
    assert.equal(held.startedAt, file.startedAt, `${name}: startedAt`);
    assert.equal(held.durationMs, file.durationMs, `${name}: durationMs`);
    assert.deepEqual(held.agent, file.agent, `${name}: agent`);
    assert.deepEqual(held.warnings, file.warnings, `${name}: warnings`);
    assert.deepEqual(held.events, file.events, `${name}: events`);
  }
  assert.deepEqual(explorer, file, 'the explorer holds the whole file');
  assert.deepEqual(withoutLogs(cli), withoutLogs(file), 'the CLI holds the file but its logs (it prints them)');
  assert.deepEqual(withoutLogs(runs), withoutLogs(file), 'the Runs view holds the file but its logs');
  assert.deepEqual(json(trace), file, 'the outcome carries the file');

  // The facts that drifted before there was one fold.
  assert.notEqual(file.startedAt, file.events.find((e) => e.type === 'rollout.started')?.at);
  assert.deepEqual(file.agent, { kind: 'fixed', detail: 'fixed: done' });
  assert.deepEqual(file.warnings, ['the verifier shares the actor substrate']);
  assert.equal(
    c.printed.filter((l) => l.includes('shares the actor substrate')).length,
    1,
    'the CLI prints a warning once',
  );
  assert.equal(c.runs.rollout(recorder.rolloutId)?.tracePath, tracePath);
});

test('when the trace cannot be written every consumer hears why, and still agrees with the outcome', () => {
  const c = consumers();
  const blocked = join(SCRATCH, 'a-file');
  writeFileSync(blocked, 'not a folder');
  const recorder = new TraceRecorder(
    { taskRef: 'env.py::task', agent: { kind: 'nop' }, provider: { kind: 'local' }, traceDir: join(blocked, 'traces') },
    c.hub,
  );
  playRollout(recorder);
  const { trace, tracePath } = recorder.end({ status: 'completed', result: grade, error: null });
  assert.equal(tracePath, undefined);
  assert.match(trace.warnings.at(-1) ?? '', /cannot write the trace/);
  assert.deepEqual(json(c.explorer.get(recorder.rolloutId)), json(trace));
  assert.deepEqual(withoutLogs(c.cli.traces.get(recorder.rolloutId)), withoutLogs(trace));
  assert.equal(trace.events.at(-1)?.type, 'rollout.ended', 'the warning comes before the end');
});
