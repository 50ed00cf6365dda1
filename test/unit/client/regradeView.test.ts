import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import { gradeDelta, summarise } from '../../../client/src/engine/regrade/delta';
import { findTask, taskKey } from '../../../client/src/taskLookup';
import { TestingTaskLines, inlineResults } from '../../../client/src/inlineResults';
import {
  deltaLine,
  deltaText,
  regradeInlineResults,
  regradeLensTitle,
  subscoreDeltaText,
  summaryText,
} from '../../../client/src/regradeView';

const grade = (reward: number, subs: Record<string, number> = {}) => ({
  reward,
  subscores: Object.entries(subs).map(([name, value]) => ({ name, value, weight: 1 })),
  info: {},
  isError: false,
});

const range = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 10 } });
const INDEX: WorkspaceIndex = {
  version: 1,
  environments: [],
  templates: [
    {
      id: 'solve',
      env: 'demo',
      functionName: 'solve',
      description: '',
      uri: 'file:///w/env.py',
      range: range(10),
      gradeYieldRange: range(13),
      params: [],
      agentless: false,
      resultKeys: [],
      readsKeys: [],
    },
  ],
  tasks: [
    {
      ref: 'env.py::a',
      kind: 'hud',
      label: 'a',
      uri: 'file:///w/env.py',
      range: range(20),
      env: 'demo',
      templateId: 'solve',
    },
    {
      ref: 'env.py::b',
      kind: 'hud',
      label: 'b',
      uri: 'file:///w/env.py',
      range: range(21),
      env: 'demo',
      templateId: 'solve',
    },
  ],
};

describe('regrade view text', () => {
  test('one rollout: the reward, its direction and the subscores that moved', () => {
    const d = gradeDelta(grade(0.4, { correct: 0, tidy: 1 }), grade(1, { correct: 1, tidy: 1 }));
    assert.equal(deltaText(d), '0.40 -> 1.00 up');
    assert.equal(subscoreDeltaText(d), 'correct 0.00 -> 1.00');
    assert.equal(deltaLine(d), '0.40 -> 1.00 up (correct 0.00 -> 1.00)');
    assert.equal(deltaLine(gradeDelta(grade(0.5), grade(0.5))), '0.50 -> 0.50 unchanged');
  });

  test('the summary counts directions and failures and gives both means', () => {
    const s = summarise([
      gradeDelta(grade(0), grade(1)),
      gradeDelta(grade(1), grade(0.5)),
      gradeDelta(grade(1), grade(1)),
      null,
    ]);
    assert.equal(summaryText(s), '3 regraded: 1 up, 1 down, 1 unchanged, 1 not regraded; mean 0.67 -> 0.83');
  });

  test('the lens counts stored runs', () => {
    assert.equal(regradeLensTitle(1), 'Regrade 1 stored run');
    assert.equal(regradeLensTitle(12), 'Regrade 12 stored runs');
  });
});

describe('regradeInlineResults', () => {
  test("each task's line gets its change, the template's grading yield the summary of all", () => {
    const out = regradeInlineResults(INDEX, [
      { ref: 'env.py::a', delta: gradeDelta(grade(0), grade(1)) },
      { ref: 'env.py::b', delta: null, error: 'the rollout recorded no answer' },
    ]);
    assert.deepEqual(
      out.map((r) => [r.line, r.text]),
      [
        [20, 'regrade: 0.00 -> 1.00 up'],
        [21, 'regrade: not regraded (the rollout recorded no answer)'],
        [13, 'regrade: 1 regraded: 1 up, 0 down, 0 unchanged, 1 not regraded; mean 0.00 -> 1.00'],
      ],
    );
    assert.match(out[2]!.hover, /demo\/solve/);
  });

  test('several rollouts of one task: the task line shows their summary; unknown tasks are left out', () => {
    const out = regradeInlineResults(INDEX, [
      { ref: 'env.py::a', delta: gradeDelta(grade(0), grade(1)) },
      { ref: 'env.py::a', delta: gradeDelta(grade(1), grade(1)) },
      { ref: 'gone.py::x', delta: gradeDelta(grade(1), grade(0)) },
    ]);
    assert.equal(out[0]!.text, 'regrade: 2 regraded: 1 up, 0 down, 1 unchanged; mean 0.50 -> 1.00');
    assert.equal(out.length, 2);
  });

  test("a task line that VS Code's Testing message holds is left to it, as after a run; the template line still tells", () => {
    const lines = new TestingTaskLines();
    // The run before the regrade: 0.00 < threshold 1.00, so the Testing view drew its failure on the task's line.
    const failed = { status: 'completed' as const, reward: 0, result: grade(0), error: null };
    const a = findTask(INDEX.tasks, 'env.py::a')!;
    lines.reported(taskKey(a.ref, a.uri), 'failed');
    const afterRun = inlineResults(INDEX, a, failed, null, 1);
    const afterRegrade = regradeInlineResults(
      INDEX,
      [{ ref: 'env.py::a', delta: gradeDelta(grade(0), grade(1)) }],
      (task) => lines.holds(task),
    );
    const drawn = (rs: { line: number; drawnBy?: string }[]) => rs.map((r) => [r.line, r.drawnBy ?? 'hud-studio']);
    // One rule for the task's line, whoever writes there: the run's result and the regrade's delta both yield.
    assert.deepEqual(drawn(afterRun), [
      [20, 'testing'],
      [13, 'hud-studio'],
    ]);
    assert.deepEqual(drawn(afterRegrade), [
      [20, 'testing'],
      [13, 'hud-studio'],
    ]);
    assert.equal(afterRegrade[1]!.text, 'regrade: 0.00 -> 1.00 up');

    // A task whose last Testing report passed (or was cancelled) has no message there: the delta is drawn.
    const key = (ref: string) => taskKey(ref, findTask(INDEX.tasks, ref)!.uri);
    lines.reported(key('env.py::a'), 'passed');
    lines.reported(key('env.py::b'), 'skipped');
    const both = regradeInlineResults(
      INDEX,
      [
        { ref: 'env.py::a', delta: gradeDelta(grade(1), grade(0)) },
        { ref: 'env.py::b', delta: gradeDelta(grade(0), grade(1)) },
      ],
      (task) => lines.holds(task),
    );
    assert.deepEqual(drawn(both), [
      [20, 'hud-studio'],
      [21, 'hud-studio'],
      [13, 'hud-studio'],
    ]);
    lines.reported(key('env.py::b'), 'errored');
    assert.deepEqual([lines.holds(key('env.py::a')), lines.holds(key('env.py::b'))], [false, true]);
  });

  test("two folders that each hold the env.py: a regraded run's delta is drawn in its own folder's file", () => {
    const B = 'file:///v/env.py';
    const twoFolders: WorkspaceIndex = {
      ...INDEX,
      templates: [...INDEX.templates, ...INDEX.templates.map((t) => ({ ...t, uri: B }))],
      tasks: [
        ...INDEX.tasks.map((t) => ({ ...t, templateUri: t.uri })),
        ...INDEX.tasks.map((t) => ({ ...t, uri: B, templateUri: B })),
      ],
    };
    const out = regradeInlineResults(twoFolders, [{ ref: 'env.py::a', uri: B, delta: gradeDelta(grade(0), grade(1)) }]);
    assert.deepEqual(
      out.map((r) => [r.uri, r.line]),
      [
        [B, 20],
        [B, 13],
      ],
    );
  });
});
