/**
 * Golden answers in the Testing view, without vscode: the item tree built
 * from the index (rows of golden files, Harbor golden solutions) and the
 * report a finished item shows (docs/grader-workbench.md).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { IndexedGoldenRow, WorkspaceIndex } from '../../../common/lspMessages';
import type { GoldenOutcome } from '../../../client/src/engine/golden/run';
import { goldenReport } from '../../../client/src/goldenReport';
import { goldenTree, isGoldenId } from '../../../client/src/goldenTree';

const line = (n: number) => ({ start: { line: n, character: 0 }, end: { line: n, character: 50 } });
const GOLDEN = 'file:///w/envs/env.golden.jsonl';

function row(n: number, task: string, bound: boolean): IndexedGoldenRow {
  return {
    uri: GOLDEN,
    range: line(n),
    task,
    answer: '"apple"',
    expect: '== 1',
    ...(bound ? { taskRef: `envs/env.py::${task}`, taskUri: 'file:///w/envs/env.py' } : {}),
  };
}

const index: WorkspaceIndex = {
  version: 3,
  environments: [],
  templates: [],
  tasks: [
    { ref: 'envs/env.py::task', kind: 'hud', label: 'task', uri: 'file:///w/envs/env.py', range: line(9) },
    { ref: 'harbor/greet', kind: 'harbor', label: 'greet', uri: 'file:///w/harbor/greet/task.toml', range: line(0) },
    { ref: 'harbor/plain', kind: 'harbor', label: 'plain', uri: 'file:///w/harbor/plain/task.toml', range: line(0) },
  ],
  golden: [row(0, 'task', true), row(2, 'tsak', false)],
};

const rel = (u: string) => u.replace('file:///w/', '');

describe('golden answers in the Testing tree', () => {
  test('one group per golden file and per Harbor golden/ folder, one item per row or solution', () => {
    const asked: string[] = [];
    const groups = goldenTree(index, rel, (taskUri) => {
      asked.push(taskUri);
      return taskUri.includes('greet')
        ? [
            { solution: 'good/exact', uri: 'file:///w/harbor/greet/golden/good/exact/solve.sh', expect: '== 1' },
            { solution: 'bad/nothing', uri: 'file:///w/harbor/greet/golden/bad/nothing/solve.sh', expect: '== 0' },
          ]
        : [];
    });
    assert.deepEqual(asked, ['file:///w/harbor/greet/task.toml', 'file:///w/harbor/plain/task.toml']);
    assert.deepEqual(
      groups.map((g) => [g.label, g.items.map((i) => [i.label, i.description])]),
      [
        [
          'envs/env.golden.jsonl',
          [
            ['task ← "apple"', 'expects == 1'],
            ['tsak ← "apple"', 'expects == 1 · no such task'],
          ],
        ],
        [
          'harbor/greet/golden',
          [
            ['good/exact', 'expects == 1'],
            ['bad/nothing', 'expects == 0'],
          ],
        ],
      ],
    );
    const [file, harbor] = groups;
    // Rows are found again by their 1-based line at run time; items sit on the row's own line.
    assert.deepEqual(file!.items[1]!.target, { kind: 'row', uri: GOLDEN, line: 3 });
    assert.deepEqual(file!.items[1]!.range, line(2));
    assert.deepEqual(harbor!.items[1]!.target, {
      kind: 'solution',
      taskUri: 'file:///w/harbor/greet/task.toml',
      solution: 'bad/nothing',
    });
    const ids = groups.flatMap((g) => [g.id, ...g.items.map((i) => i.id)]);
    assert.ok(ids.every(isGoldenId));
    assert.equal(new Set(ids).size, ids.length, 'ids are unique');
    assert.ok(!isGoldenId('envs/env.py::task'), 'a task reference is never taken for a golden id');
  });

  test('an index without golden rows (an older server) gives no groups', () => {
    const { golden: _golden, ...older } = index;
    assert.deepEqual(
      goldenTree(older, rel, () => []),
      [],
    );
  });
});

const outcome = (over: Partial<GoldenOutcome>): GoldenOutcome => ({
  row: { task: 'task', answer: 'apple', expect: 1, line: 1 },
  ref: '/w/envs/env.py::task',
  passed: false,
  expected: '== 1',
  reward: 0.4,
  subscores: [{ name: 'enough', expected: '== 1', actual: 0 }],
  result: {
    reward: 0.4,
    subscores: [
      { name: 'enough', value: 0, weight: 0.6 },
      { name: 'tidy', value: 1, weight: 0.4 },
    ],
    info: {},
    isError: false,
  },
  ...over,
});

describe('golden item report', () => {
  test('a mismatch fails with both rewards and the subscores that missed, as expected and actual output', () => {
    const r = goldenReport(outcome({}));
    assert.equal(r.verdict, 'failed');
    assert.equal(r.message, 'reward 0.40, expected == 1; enough 0.00, expected == 1');
    assert.equal(r.expected, 'reward == 1\nenough == 1');
    assert.equal(r.actual, 'reward 0.40\nenough 0.00\ntidy 1.00');
  });

  test('a pass says what it got; a run that could not grade is an error, not a failure', () => {
    const ok = goldenReport(outcome({ passed: true, reward: 1, subscores: [] }));
    assert.deepEqual(ok, { verdict: 'passed', message: 'reward 1.00, expected == 1' });
    const err = goldenReport(outcome({ error: 'actor: template raised ValueError', reward: null, result: null }));
    assert.deepEqual(err, { verdict: 'errored', message: 'actor: template raised ValueError' });
    const missing = goldenReport(outcome({ subscores: [{ name: 'gone', expected: '>= 0.5', actual: null }] }));
    assert.match(missing.message, /gone none, expected >= 0\.5/);
  });
});
