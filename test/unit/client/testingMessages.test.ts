/**
 * What the Testing view is told, from the real TaskTests class over a
 * recording `vscode` (fakeVscode/vscode.ts). Issue 15, item 7 ("one inline
 * result per line"): VS Code draws a failed task's message at the end of the
 * task's line whether or not the message has a location (it falls back to
 * the item's range), so the message says where it is drawn and its first line
 * carries the facts of HUD Studio's inline text, which yields on that line
 * (inlineResults.test.ts has that rule). A golden row's message sits on the
 * row's own line of the golden file (docs/grader-workbench.md).
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import type { GoldenOutcome } from '../../../client/src/engine/golden/run';
import type { RolloutOutcome } from '../../../client/src/outcome';
import type { GoldenRunRequest } from '../../../client/src/ui/goldenRunner';
import type { RunRequest } from '../../../client/src/ui/runner';
import { taskKey } from '../../../client/src/taskLookup';
import { loadWithFakeVscode } from './fakeVscode/load';
import type * as Fake from './fakeVscode/vscode';

const range = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 20 } });
const ENV = 'file:///w/envs/env.py';
const GOLDEN = 'file:///w/envs/env.golden.jsonl';
const INDEX: WorkspaceIndex = {
  version: 1,
  environments: [],
  templates: [],
  tasks: [{ ref: 'envs/env.py::task', kind: 'hud', label: 'task', uri: ENV, range: range(11) }],
  golden: [
    {
      uri: GOLDEN,
      range: range(2),
      task: 'task',
      answer: '"apple"',
      expect: '== 1',
      taskRef: 'envs/env.py::task',
      taskUri: ENV,
    },
  ],
};

const FAILED: RolloutOutcome = {
  rolloutId: 'r1',
  ref: 'envs/env.py::task',
  status: 'completed',
  reward: 0.25,
  result: { reward: 0.25, subscores: [], info: {}, isError: false },
  error: null,
  tracePath: undefined,
};

const GOLDEN_FAILED: GoldenOutcome = {
  row: { task: 'task', answer: 'apple', expect: 1, line: 3 },
  ref: '/w/envs/env.py::task',
  passed: false,
  expected: '== 1',
  reward: 0.4,
  subscores: [{ name: 'enough', expected: '== 1', actual: 0 }],
  result: { reward: 0.4, subscores: [{ name: 'enough', value: 0, weight: 1 }], info: {}, isError: false },
};

const token = { onCancellationRequested: () => ({ dispose: () => undefined }) };

describe('Testing view messages (TaskTests over a recording vscode)', () => {
  let vscode: typeof Fake;
  let TaskTests: typeof import('../../../client/src/ui/testing').TaskTests;
  const ran: RunRequest[] = [];
  const graded: GoldenRunRequest[] = [];

  before(() => {
    vscode = loadWithFakeVscode<typeof Fake>(__filename, 'vscode');
    ({ TaskTests } = loadWithFakeVscode<typeof import('../../../client/src/ui/testing')>(
      __filename,
      '../../../client/src/ui/testing',
    ));
  });

  function tests() {
    const t = new TaskTests(
      (req) => {
        ran.push(req);
        const target = req.targets[0]!;
        req.onStarted?.(target);
        req.onFinished?.(target, FAILED, FAILED.result, FAILED.rolloutId);
        return Promise.resolve({ ran: true });
      },
      (uri) => uri.replace('file:///w/', ''),
      (req) => {
        graded.push(req);
        for (const { id } of req.targets) {
          req.onStarted(id);
          req.onFinished(id, GOLDEN_FAILED);
        }
        return Promise.resolve({ ran: true });
      },
    );
    t.setIndex(INDEX);
    const controller = vscode.controllers.at(-1)!;
    return { t, controller };
  }

  test("a failed task run from the editor: the message is on the task's line and its first line has the facts (item 7)", () => {
    const { t, controller } = tests();
    t.recordEditorRun({ ref: 'envs/env.py::task', uri: ENV, label: 'task' }, FAILED, 1200);
    const verdict = controller.runs.at(-1)!.verdicts[0]!;
    assert.equal(verdict.state, 'failed');
    assert.equal(verdict.message!.message.split('\n')[0], 'reward 0.25 < threshold 1.00');
    assert.equal(verdict.message!.location?.uri.toString(), ENV);
    assert.equal(verdict.message!.location?.range.start.line, 11);
  });

  test("a failed task from a Testing run: the same message on the task's line", async () => {
    const { controller } = tests();
    const task = controller.items.get(ENV)!.children.get('envs/env.py::task')!;
    const profile = controller.profiles.find((p) => p.isDefault)!;
    await profile.run(new vscode.TestRunRequest([task]), token);
    assert.deepEqual(
      ran.at(-1)!.targets.map((x) => x.ref),
      ['envs/env.py::task'],
    );
    const verdict = controller.runs.at(-1)!.verdicts[0]!;
    assert.equal(verdict.state, 'failed');
    assert.match(verdict.message!.message, /^reward 0\.25 < threshold 1\.00/);
    assert.equal(verdict.message!.location?.range.start.line, 11);
  });

  test("a golden row fails on its own line, expected against actual, and never reaches the agent's runner", async () => {
    const { controller } = tests();
    const before = ran.length;
    const group = controller.items.get(`golden:${GOLDEN}`)!;
    assert.equal(group.label, 'envs/env.golden.jsonl');
    const row = group.children.get(`golden:${GOLDEN}#3`)!;
    assert.equal(row.label, 'task ← "apple"');
    for (const p of controller.profiles) await p.run(new vscode.TestRunRequest([row]), token);
    assert.equal(ran.length, before, 'no rollout with an agent');
    assert.deepEqual(graded.at(-1)!.targets, [{ id: row.id, target: { kind: 'row', uri: GOLDEN, line: 3 } }]);
    const verdict = controller.runs.at(-1)!.verdicts[0]!;
    assert.equal(verdict.state, 'failed');
    assert.equal(verdict.message!.message, 'reward 0.40, expected == 1; enough 0.00, expected == 1');
    assert.equal(verdict.message!.expectedOutput, 'reward == 1\nenough == 1');
    assert.equal(verdict.message!.actualOutput, 'reward 0.40\nenough 0.00');
    assert.equal(verdict.message!.location?.uri.toString(), GOLDEN);
    assert.equal(verdict.message!.location?.range.start.line, 2);
  });

  test('Run All runs tasks with the agent and golden rows by grading, in one Testing run', async () => {
    const { controller } = tests();
    const profile = controller.profiles.find((p) => p.isDefault)!;
    await profile.run(new vscode.TestRunRequest(), token);
    const run = controller.runs.at(-1)!;
    assert.deepEqual(run.verdicts.map((v) => [v.item, v.state]).sort(), [
      ['envs/env.py::task', 'failed'],
      [`golden:${GOLDEN}#3`, 'failed'],
    ]);
    assert.ok(run.ended);
  });

  test('two folders that each hold the env.py: each task item runs, starts and reports as itself', async () => {
    // One reference in both folders: the items' ids are equal, their files are not.
    const OTHER = 'file:///v/envs/env.py';
    const index: WorkspaceIndex = {
      version: 2,
      environments: [],
      templates: [],
      tasks: [ENV, OTHER].map((uri, k) => ({
        ref: 'envs/env.py::task',
        kind: 'hud',
        label: 'task',
        uri,
        range: range(11 + k),
      })),
    };
    const passed: RolloutOutcome = { ...FAILED, reward: 1, result: { ...FAILED.result!, reward: 1 } };
    const requests: RunRequest[] = [];
    const t = new TaskTests(
      (req) => {
        requests.push(req);
        // The second folder's task passes, the first's fails: each result must reach its own item.
        for (const target of req.targets) {
          req.onStarted?.(target);
          const o = target.uri === OTHER ? passed : FAILED;
          req.onFinished?.(target, o, o.result, o.rolloutId);
        }
        return Promise.resolve({ ran: true });
      },
      (uri) => uri,
      () => Promise.resolve({ ran: true }),
    );
    t.setIndex(index);
    const controller = vscode.controllers.at(-1)!;
    await controller.profiles.find((p) => p.isDefault)!.run(new vscode.TestRunRequest(), token);
    assert.deepEqual(
      requests
        .at(-1)!
        .targets.map((x) => [x.ref, x.uri])
        .sort(),
      [
        ['envs/env.py::task', OTHER],
        ['envs/env.py::task', ENV],
      ],
      'both run: neither is taken for the other',
    );
    const run = controller.runs.at(-1)!;
    assert.deepEqual(run.startedItems.map((i) => i.uri?.toString()).sort(), [OTHER, ENV]);
    assert.deepEqual(run.verdicts.map((v) => [v.file, v.state]).sort(), [
      [OTHER, 'passed'],
      [ENV, 'failed'],
    ]);
    // The failed task's line holds VS Code's message, the passed one's does not.
    assert.equal(t.taskLines.holds(taskKey('envs/env.py::task', ENV)), true);
    assert.equal(t.taskLines.holds(taskKey('envs/env.py::task', OTHER)), false);
    // Excluding one folder's task leaves the other's.
    const first = controller.items.get(ENV)!.children.get('envs/env.py::task')!;
    await controller.profiles.find((p) => p.isDefault)!.run(new vscode.TestRunRequest(undefined, [first]), token);
    assert.deepEqual(
      requests.at(-1)!.targets.map((x) => x.uri),
      [OTHER],
    );
    // A run from the editor reaches the item of its own file, and the task line it holds is that one's.
    t.recordEditorRun({ ref: 'envs/env.py::task', uri: OTHER, label: 'task' }, FAILED, 10);
    assert.deepEqual(
      controller.runs.at(-1)!.verdicts.map((v) => [v.file, v.state]),
      [[OTHER, 'failed']],
    );
    assert.equal(t.taskLines.holds(taskKey('envs/env.py::task', OTHER)), true);
  });
});
