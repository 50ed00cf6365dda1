import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RolloutEvent } from '../../../common/events';
import {
  RunsModel,
  clockTime,
  outcomeKey,
  durationText,
  labelOfRef,
  type RunsNode,
} from '../../../client/src/runsModel';
import type { Trace } from '../../../common/trace/schema';
import { T0, at, identity, storedTrace } from './traceFixtures';

function sameEnvRun(rolloutId: string, jobId: string, verifierReward: number | null): RolloutEvent[] {
  const ev: RolloutEvent[] = [
    { type: 'rollout.queued', rolloutId, at: at(0), taskRef: 'envs/env.py::task', jobId },
    {
      type: 'rollout.started',
      rolloutId,
      at: at(10),
      task: identity('envs/env.py::task', 'workspace', 'solve'),
      verifier: identity('', 'workspace', 'verify'),
    },
    {
      type: 'phase.started',
      rolloutId,
      at: at(20),
      phase: 'actor',
      substrate: { id: 'c0ffee123456789', provider: 'docker', isolation: 'container', image: 'hud-studio/env:abc' },
      reused: false,
    },
    { type: 'log', rolloutId, at: at(30), phase: 'actor', stream: 'stdout', text: 'hi\n' },
    {
      type: 'grade',
      rolloutId,
      at: at(500),
      phase: 'actor',
      result: { reward: 0, subscores: [], info: {}, isError: false },
      raw: { score: 0 },
      authoritative: false,
    },
    { type: 'phase.ended', rolloutId, at: at(520), phase: 'actor', status: 'completed' },
    {
      type: 'phase.started',
      rolloutId,
      at: at(530),
      phase: 'verifier',
      substrate: { id: 'c0ffee123456789', provider: 'docker', isolation: 'container' },
      reused: true,
    },
  ];
  if (verifierReward === null) {
    ev.push(
      { type: 'phase.ended', rolloutId, at: at(900), phase: 'verifier', status: 'error', error: 'KeyError: answer' },
      {
        type: 'rollout.ended',
        rolloutId,
        at: at(1000),
        status: 'error',
        reward: null,
        result: null,
        tracePath: '/tr/x.hudtrace.json',
        error: { phase: 'verifier', message: 'KeyError: answer' },
      },
    );
  } else {
    const result = {
      reward: verifierReward,
      subscores: [
        { name: 'exact_match', value: 1, weight: 0.8 },
        { name: 'all', value: 0, weight: 0.2, children: [{ name: 'tests', value: 0, weight: 1 }] },
        { name: 'lint', value: 1, weight: -0.1 },
      ],
      info: {},
      isError: false,
    };
    ev.push(
      { type: 'grade', rolloutId, at: at(800), phase: 'verifier', result, raw: {}, authoritative: true },
      { type: 'phase.ended', rolloutId, at: at(900), phase: 'verifier', status: 'completed' },
      {
        type: 'rollout.ended',
        rolloutId,
        at: at(2500),
        status: 'completed',
        reward: verifierReward,
        result,
        tracePath: '/tr/y.hudtrace.json',
        error: null,
      },
    );
  }
  return ev;
}

function labels(m: RunsModel, node?: RunsNode, depth = 0): string[] {
  const out: string[] = [];
  for (const c of m.children(node)) {
    const v = m.view(c);
    out.push(`${'  '.repeat(depth)}${v.label}${v.description ? ` — ${v.description}` : ''} [${v.icon.id}]`);
    out.push(...labels(m, c, depth + 1));
  }
  return out;
}

describe('Runs view model', () => {
  test('a graded rollout shows job -> rollout -> phases -> subscores with badges', () => {
    const m = new RunsModel(() => T0 + 3000);
    m.startJob('j1', 'Run task (env.py)');
    for (const e of sameEnvRun('r1', 'j1', 0.7)) m.apply(e);
    assert.deepEqual(labels(m), [
      `Run task (env.py) · ${clockTime(at(3000))} — 1 rollout · reward 0.70 [layers]`,
      // 0.70 is below the default pass threshold of 1: failed, as in the Testing view.
      `  task (env.py) · ${clockTime(at(0))} — reward 0.70 · exact_match 1.00 · all 0.00 · lint 1.00 · 2.5 s [error]`,
      '    actor — docker hud-studio/env:abc · 500 ms · provisional 0.00 [pass]',
      '    verifier — docker (reused) · 370 ms · 0.70 [pass]',
      '      exact_match — 1.00 × 0.80 [pass]',
      '      all — 0.00 × 0.20 [circle-slash]',
      '        tests — 0.00 × 1.00 [circle-slash]',
      '      lint — 1.00 × -0.10 penalty [dash]',
    ]);
    const rollout = m.children({ kind: 'job', jobId: 'j1' })[0]!;
    assert.equal(m.view(rollout).contextValue, 'hudRollout.trace');
    assert.equal(m.rollout('r1')!.tracePath, '/tr/y.hudtrace.json');
    assert.equal(m.lastOutcomes().get(outcomeKey('envs/env.py::task', '/tr'))!.reward, 0.7);
  });

  test("the last outcome of a reference is kept per trace folder: two workspace folders' tasks share references", () => {
    const m = new RunsModel(() => T0 + 3000);
    const inFolder = (dir: string) => (e: RolloutEvent) =>
      e.type === 'rollout.ended' ? { ...e, tracePath: `${dir}/x.hudtrace.json` } : e;
    for (const e of sameEnvRun('a1', 'j', 0.7)) m.apply(inFolder('/a/.hud-studio/traces')(e));
    for (const e of sameEnvRun('b1', 'j', 0.2)) m.apply(inFolder('/b/.hud-studio/traces')(e));
    for (const e of sameEnvRun('a2', 'j', 0.9)) m.apply(inFolder('/a/.hud-studio/traces')(e));
    for (const e of sameEnvRun('n1', 'j', 0.4))
      m.apply(e.type === 'rollout.ended' ? { ...e, tracePath: undefined } : e);
    const last = m.lastOutcomes();
    assert.deepEqual(
      [
        last.get(outcomeKey('envs/env.py::task', '/a/.hud-studio/traces'))?.reward,
        last.get(outcomeKey('envs/env.py::task', '/b/.hud-studio/traces/'))?.reward,
        last.get(outcomeKey('envs/env.py::task', undefined))?.reward,
      ],
      [0.9, 0.2, 0.4],
    );
  });

  test('pass and fail follow the pass threshold, as in the Testing view; errored is neither', () => {
    const m = new RunsModel(() => T0 + 3000);
    for (const e of sameEnvRun('p1', 'jp', 0.7)) m.apply(e);
    for (const e of sameEnvRun('p2', 'jp', null)) m.apply(e);
    const [graded, errored] = m.children({ kind: 'job', jobId: 'jp' });
    assert.deepEqual(m.view(graded!).icon, { id: 'error', color: 'testing.iconFailed' });
    m.setThreshold(0.5);
    assert.deepEqual(m.view(graded!).icon, { id: 'pass', color: 'testing.iconPassed' });
    assert.deepEqual(
      m.view(errored!).icon,
      { id: 'error', color: 'testing.iconErrored' },
      'the rollout node of an errored run',
    );
  });

  test('a rollout says who answered and what; nobody answering is said too', () => {
    const m = new RunsModel(() => T0 + 3000);
    const events = sameEnvRun('a1', 'ja', 1);
    events.splice(2, 0, { type: 'answer', rolloutId: 'a1', at: at(15), answer: 'paris' });
    (events[0] as { agent?: unknown }).agent = { kind: 'fixed' };
    for (const e of events) m.apply(e);
    const [rollout] = m.children({ kind: 'job', jobId: 'ja' });
    assert.match(m.view(rollout!).description!, /reward 1\.00 .*· fixed "paris" · 2\.5 s$/);
    const empty = sameEnvRun('a2', 'jb', 0);
    empty.splice(2, 0, { type: 'answer', rolloutId: 'a2', at: at(15), answer: '' });
    (empty[0] as { agent?: unknown }).agent = { kind: 'fixed' };
    for (const e of empty) m.apply(e);
    assert.match(m.view(m.children({ kind: 'job', jobId: 'jb' })[0]!).description!, /the answer was empty/);
  });

  test('traces from earlier sessions are grouped by task; the previous run of a task is found', () => {
    const m = new RunsModel(() => T0 + 3000);
    m.addTrace(storedTrace('old2', 2000), '/tr/old2.hudtrace.json');
    m.addTrace(storedTrace('old1', 1000), '/tr/old1.hudtrace.json');
    assert.deepEqual(
      m.jobList().map((j) => j.label),
      ['task (env.py) · earlier runs'],
    );
    assert.deepEqual(m.job('history:envs/env.py::task')!.rollouts, ['old1', 'old2'], 'oldest first');
    assert.equal(m.previousOf('old2')?.id, 'old1');
    assert.equal(m.previousOf('old1'), undefined);
  });

  test('an errored rollout shows the failed phase first, with the message', () => {
    const m = new RunsModel(() => T0 + 3000);
    for (const e of sameEnvRun('r2', 'j2', null)) m.apply(e);
    const rollout = m.children({ kind: 'job', jobId: 'j2' })[0]!;
    const kids = m.children(rollout).map((n) => m.view(n));
    assert.equal(kids[0]!.label, 'failed in verifier');
    assert.equal(kids[0]!.description, 'KeyError: answer');
    assert.equal(kids[0]!.icon.id, 'error');
    assert.equal(kids[2]!.icon.id, 'error');
    assert.match(m.view(rollout).description!, /^errored in verifier: KeyError: answer/);
  });

  test('a running rollout spins and counts as running until it ends', () => {
    const m = new RunsModel(() => T0 + 700);
    const events = sameEnvRun('r3', 'j3', 1);
    for (const e of events.slice(0, 7)) m.apply(e);
    assert.equal(m.runningCount(), 1);
    const rollout = m.children({ kind: 'job', jobId: 'j3' })[0]!;
    assert.equal(m.view(rollout).icon.id, 'sync~spin');
    assert.match(m.view(rollout).description!, /^running verifier/);
    for (const e of events.slice(7)) m.apply(e);
    assert.equal(m.runningCount(), 0);
  });

  test('listeners hear every visible change, not log lines', () => {
    const m = new RunsModel();
    let n = 0;
    m.onChange(() => n++);
    const events = sameEnvRun('r4', 'j4', 1);
    for (const e of events) m.apply(e);
    assert.equal(n, events.filter((e) => e.type !== 'log').length);
  });

  test('clearing keeps running jobs and drops finished ones', () => {
    const m = new RunsModel();
    for (const e of sameEnvRun('r5', 'j5', 1)) m.apply(e);
    for (const e of sameEnvRun('r6', 'j6', 1).slice(0, 3)) m.apply(e);
    m.clearFinished();
    assert.deepEqual(
      m.jobList().map((j) => j.id),
      ['j6'],
    );
  });

  test('labels and durations', () => {
    assert.equal(labelOfRef('envs/env.py::suite[2]'), 'suite[2] (env.py)');
    assert.equal(labelOfRef('tasks/hello-world'), 'hello-world');
    assert.equal(durationText(at(0), at(61_500), 0), '1 min 2 s');
    assert.equal(durationText(undefined, undefined, 0), undefined);
  });

  test('a regrade shows its change from the stored rollout, and compares with that rollout', () => {
    const m = new RunsModel(() => T0 + 3000);
    const stored = {
      ...storedTrace('orig', 1000),
      result: { reward: 0, subscores: [], info: {}, isError: false },
    } as Trace;
    m.addTrace(stored, '/tr/orig.hudtrace.json');
    m.startJob('rj', 'Regrade demo/solve');
    const regraded = {
      ...storedTrace('new', 2500),
      jobId: 'rj',
      regrade: { of: 'orig', graderHash: 'h2' },
    } as Trace;
    m.addRegrade('rj', regraded, '/tr/new.hudtrace.json', {
      of: 'orig',
      originalPath: '/tr/orig.hudtrace.json',
      delta: {
        before: 0,
        after: 1,
        direction: 'up',
        subscores: [{ name: 'correct', before: 0, after: 1 }],
      },
    });
    const [row] = m.children({ kind: 'job', jobId: 'rj' });
    const v = m.view(row!);
    assert.match(v.description!, /^regrade · 0\.00 -> 1\.00 up/);
    assert.match(v.tooltip!, /regrade of orig: 0\.00 -> 1\.00 up \(correct 0\.00 -> 1\.00\)/);
    assert.equal(v.contextValue, 'hudRollout.trace');
    assert.deepEqual(m.previousOf('new'), { id: 'orig', tracePath: '/tr/orig.hudtrace.json' });
    m.addTrace(storedTrace('later', 4000), '/tr/later.hudtrace.json');
    assert.equal(m.previousOf('later')?.id, 'orig', 'a regrade is not the previous run of the task');

    m.addRegrade('rj', { ...regraded, rolloutId: 'failed' }, undefined, {
      of: 'orig',
      originalPath: '/tr/orig.hudtrace.json',
      delta: null,
      error: 'the verifier crashed',
    });
    assert.equal(
      m.view({ kind: 'job', jobId: 'rj' }).description,
      '2 rollouts · 1 regraded: 1 up, 0 down, 0 unchanged, 1 not regraded; mean 0.00 -> 1.00',
    );
    const failed = m.view({ kind: 'rollout', rolloutId: 'failed' });
    assert.match(failed.description!, /^regrade · not regraded/);
    assert.match(failed.tooltip!, /failed: the verifier crashed/);
  });

  test('a stale rollout says so in its description and icon, and offers the template diff', () => {
    const m = new RunsModel(() => T0 + 3000);
    m.addTrace(storedTrace('old', 1000), '/tr/old.hudtrace.json');
    const node: RunsNode = { kind: 'rollout', rolloutId: 'old' };
    assert.doesNotMatch(m.view(node).description!, /stale/);
    let changes = 0;
    m.onChange(() => changes++);
    m.setStaleness((t) => (t.rolloutId === 'old' ? { template: true, verifier: false } : undefined));
    assert.equal(changes, 1, 'the view refreshes');
    const v = m.view(node);
    assert.match(v.description!, / · stale$/);
    assert.match(v.tooltip!, /stale: template changed since this run/);
    assert.equal(v.icon.id, 'history');
    assert.equal(v.contextValue, 'hudRollout.trace.stale');
    m.setStaleness(() => ({ template: false, verifier: false }));
    assert.equal(m.view(node).contextValue, 'hudRollout.trace');
    assert.equal(changes, 2, 'the view refreshes when the row is current again');
  });

  test('an index change that changes no row does not redraw the tree', () => {
    // A redraw makes VS Code forget the rows until it fetched them again: a context menu command landing then gets
    // no row. The index changes at every trace written and every keystroke.
    const m = new RunsModel(() => T0 + 3000);
    m.addTrace(storedTrace('old', 1000), '/tr/old.hudtrace.json');
    let changes = 0;
    m.onChange(() => changes++);
    m.setStaleness(() => ({ template: false, verifier: false }));
    m.setStaleness(() => undefined);
    assert.equal(changes, 0, 'nothing was stale, nothing is');
    const stale = () => ({ template: true, verifier: false });
    m.setStaleness(stale);
    m.setStaleness(stale);
    assert.equal(changes, 1, 'once when the row became stale, not again for the same staleness');
    m.setStaleness(() => ({ template: true, verifier: true }));
    assert.equal(changes, 2, 'a different reason is a different row');
  });

  test('the runs a command can pick from: finished ones, newest first, with a trace file when it needs one', () => {
    const m = new RunsModel(() => T0 + 9000);
    m.addTrace(storedTrace('first', 1000), '/tr/first.hudtrace.json');
    m.addTrace(storedTrace('third', 3000), '/tr/third.hudtrace.json');
    m.addTrace(storedTrace('second', 2000), '/tr/second.hudtrace.json');
    m.startJob('j', 'Run task');
    // One rollout runs; one ended without a trace file (the run was stopped before it was written).
    for (const e of sameEnvRun('live', 'j', 1).slice(0, 3)) m.apply(e);
    for (const e of sameEnvRun('untraced', 'j', 1))
      m.apply(e.type === 'rollout.ended' ? { ...e, tracePath: undefined } : e);
    assert.deepEqual(
      m.finished(true).map((r) => r.id),
      ['third', 'second', 'first'],
    );
    assert.deepEqual(
      m.finished(false).map((r) => r.id),
      ['third', 'second', 'first', 'untraced'],
      'not the running one',
    );
  });
});
