import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import type { Trace } from '../../../common/trace/schema';
import { writeTrace } from '../../../client/src/engine/trace/store';
import { StoredTraces, runsIn, runsOfTasks, taskOfRun, tasksGradedBy } from '../../../client/src/storedTraces';

const FIXTURE = join(__dirname, '..', '..', 'fixtures', 'traces', 'completed.hudtrace.json');
const base = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Trace;
const trace = (rolloutId: string, ref: string, startedAt: string, extra: Partial<Trace> = {}): Trace => ({
  ...base,
  rolloutId,
  startedAt,
  task: { ...base.task, ref },
  ...extra,
});

const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
const INDEX: WorkspaceIndex = {
  version: 1,
  environments: [],
  templates: [],
  tasks: [
    { ref: 'env.py::a', kind: 'hud', label: 'a', uri: 'file:///w/env.py', range, env: 'act', templateId: 'solve' },
    {
      ref: 'env.py::b',
      kind: 'hud',
      label: 'b',
      uri: 'file:///w/env.py',
      range,
      env: 'act',
      templateId: 'other',
      verifier: { env: 'judge', templateId: 'check', uri: 'file:///w/env.py', range, sameEnvironment: false },
    },
  ],
};

describe('StoredTraces', () => {
  test('lists stored rollouts, not regrades nor unreadable files, and reads a file again when it changes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hud-stored-'));
    const warnings: string[] = [];
    try {
      const first = writeTrace(dir, trace('r1', 'env.py::a', '2026-11-30T10:00:00.000Z'));
      writeTrace(
        dir,
        trace('r2', 'env.py::a', '2026-11-30T11:00:00.000Z', { regrade: { of: 'r1', graderHash: 'abc' } }),
      );
      writeFileSync(join(dir, 'broken.hudtrace.json'), '{"not": "a trace"}');
      const stored = new StoredTraces((l) => warnings.push(l));
      assert.deepEqual(
        stored.scan([dir]).map((r) => r.trace.rolloutId),
        ['r1'],
      );
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /broken\.hudtrace\.json/);
      assert.equal(stored.byId('r1')?.path, first);
      stored.scan([dir]);
      assert.equal(warnings.length, 1, 'an unchanged unreadable file is not read (nor warned about) again');
      rmSync(first);
      assert.deepEqual(stored.scan([dir]), []);
      assert.deepEqual(stored.scan([join(dir, 'missing')]), [], 'a missing folder has no runs');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('which stored runs a template grades', () => {
  test('a template grades its own tasks and the tasks it verifies; Harbor trials and other tasks are not counted', () => {
    assert.deepEqual([...tasksGradedBy(INDEX, 'act', 'solve')], ['env.py::a']);
    assert.deepEqual([...tasksGradedBy(INDEX, 'judge', 'check')], ['env.py::b']);
    assert.deepEqual([...tasksGradedBy(INDEX, 'act', 'nothing')], []);
    const runs = [
      { path: '/t/2', trace: trace('r2', 'env.py::a', '2026-11-30T12:00:00.000Z') },
      { path: '/t/1', trace: trace('r1', 'env.py::a', '2026-11-30T10:00:00.000Z') },
      { path: '/t/3', trace: trace('r3', 'env.py::b', '2026-11-30T10:00:00.000Z') },
      {
        path: '/t/4',
        trace: trace('r4', 'env.py::a', '2026-11-30T09:00:00.000Z', {
          task: { ...base.task, ref: 'env.py::a', kind: 'harbor' },
        }),
      },
    ];
    assert.deepEqual(
      runsOfTasks(runs, tasksGradedBy(INDEX, 'act', 'solve')).map((r) => r.trace.rolloutId),
      ['r1', 'r2'],
      'oldest first',
    );
  });

  test('two folders that each hold the env.py: a stored run belongs to the task of the folder whose trace folder holds it', () => {
    const A = 'file:///a/env.py';
    const B = 'file:///b/env.py';
    const index: WorkspaceIndex = {
      ...INDEX,
      tasks: [A, B].map((uri) => ({
        ref: 'env.py::a',
        kind: 'hud',
        label: 'a',
        uri,
        range,
        env: 'act',
        templateId: 'solve',
      })),
    };
    const traceDirOf = (uri: string) =>
      uri === A ? '/a/.hud-studio/traces' : uri === B ? '/b/.hud-studio/traces/' : undefined;
    const inA = {
      path: '/a/.hud-studio/traces/1.hudtrace.json',
      trace: trace('r1', 'env.py::a', '2026-12-06T09:00:00Z'),
    };
    const inB = {
      path: '/b/.hud-studio/traces/2.hudtrace.json',
      trace: trace('r2', 'env.py::a', '2026-12-06T09:01:00Z'),
    };
    const elsewhere = { path: '/tmp/traces/3.hudtrace.json', trace: trace('r3', 'env.py::a', '2026-12-06T09:02:00Z') };
    assert.equal(taskOfRun(index, inA, traceDirOf)?.uri, A);
    assert.equal(taskOfRun(index, inB, traceDirOf)?.uri, B);
    assert.equal(
      taskOfRun(index, elsewhere, traceDirOf)?.uri,
      A,
      'a trace outside both: the first task of its reference',
    );
    assert.equal(
      taskOfRun(index, { ...inA, trace: trace('r4', 'env.py::gone', '2026-12-06T09:03:00Z') }, traceDirOf),
      undefined,
    );
    // A template's stored runs are its own folder's.
    const all = [inA, inB, elsewhere];
    assert.deepEqual(
      runsIn(all, traceDirOf(B)).map((r) => r.trace.rolloutId),
      ['r2'],
    );
    assert.deepEqual(
      runsIn(all, undefined).map((r) => r.trace.rolloutId),
      ['r1', 'r2', 'r3'],
    );
  });
});
