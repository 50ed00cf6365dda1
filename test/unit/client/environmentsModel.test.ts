import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IndexedTask, WorkspaceIndex } from '../../../common/lspMessages';
import { EnvironmentsModel, type EnvNode } from '../../../client/src/environmentsModel';
import type { ShownOutcome } from '../../../client/src/outcome';
import { outcomeKey } from '../../../client/src/runsModel';

const rewarded = (reward: number): ShownOutcome => ({
  status: 'completed',
  reward,
  result: { reward, subscores: [], info: {}, isError: false },
  error: null,
});

const r = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 10 } });
const U = 'file:///ws/envs/env.py';
const index: WorkspaceIndex = {
  version: 3,
  environments: [
    { name: 'workspace', variable: 'actor', uri: U, range: r(3) },
    { name: 'judge', variable: 'judge', uri: U, range: r(4) },
  ],
  templates: [
    {
      id: 'solve',
      env: 'workspace',
      functionName: 'solve',
      description: 'Solve it',
      uri: U,
      range: r(6),
      params: [],
      agentless: false,
      resultKeys: ['score', 'answer'],
      readsKeys: [],
      promptPreview: 'Write the secret',
    },
    {
      id: 'verify',
      env: 'judge',
      functionName: 'verify',
      description: '',
      uri: U,
      range: r(11),
      params: [],
      agentless: true,
      resultKeys: [],
      readsKeys: ['answer'],
    },
  ],
  tasks: [
    {
      ref: 'envs/env.py::task',
      kind: 'hud',
      label: 'task',
      uri: U,
      range: r(15),
      env: 'workspace',
      templateId: 'solve',
      verifier: { env: 'judge', templateId: 'verify', uri: U, range: r(16), sameEnvironment: false },
    },
    { ref: 'envs/env.py::other', kind: 'hud', label: 'other', uri: U, range: r(18), env: 'missing', templateId: 'x' },
    {
      ref: 'tasks/hello',
      kind: 'harbor',
      label: 'org/hello',
      uri: 'file:///ws/tasks/hello/task.toml',
      range: r(0),
      environmentMode: 'separate',
    },
  ],
};

function dump(m: EnvironmentsModel, node?: EnvNode, depth = 0): string[] {
  return m.children(node).flatMap((c) => {
    const v = m.view(c);
    return [`${'  '.repeat(depth)}${v.label}${v.description ? ` — ${v.description}` : ''}`, ...dump(m, c, depth + 1)];
  });
}

/**
 * A multi-root workspace of two checkouts of one environment: the same
 * environment, template id and task references, in two files.
 */
const A = 'file:///a/env.py';
const B = 'file:///b/env.py';
function twoCheckouts(): WorkspaceIndex {
  const solve = index.templates[0]!;
  const task = (uri: string, line: number): IndexedTask => ({
    ref: 'env.py::task',
    kind: 'hud',
    label: 'task',
    uri,
    range: r(line),
    env: 'workspace',
    templateId: 'solve',
    templateUri: uri,
  });
  return {
    version: 1,
    environments: [
      { name: 'workspace', variable: 'actor', uri: A, range: r(3) },
      { name: 'workspace', variable: 'actor', uri: B, range: r(3) },
    ],
    templates: [
      { ...solve, uri: A, range: r(6) },
      { ...solve, uri: B, range: r(8) },
    ],
    tasks: [task(A, 15), task(B, 17)],
  };
}

describe('Environments view model', () => {
  test('environment -> templates -> tasks, Harbor and unresolved tasks grouped', () => {
    const m = new EnvironmentsModel((u) => u.replace('file:///ws/', ''));
    assert.equal(m.isEmpty(), true);
    m.setIndex(index);
    assert.equal(m.isEmpty(), false);
    assert.deepEqual(dump(m), [
      'judge — envs/env.py',
      '  verify — agent-less · 0 tasks',
      'workspace — envs/env.py',
      '  solve — 1 task',
      '    task — → judge/verify',
      '      verifier judge/verify — separate environment: fresh substrate',
      'Harbor tasks — 1',
      '  org/hello — verifier separate',
      'Other tasks — 1',
      '  other',
    ]);
  });

  test('the last reward shows on the task, and its icon follows the outcome', () => {
    const m = new EnvironmentsModel((u) => u);
    m.setIndex(index);
    m.setOutcomes(new Map([[outcomeKey('envs/env.py::task', undefined), rewarded(0.5)]]));
    const v = m.view({ kind: 'task', ref: 'envs/env.py::task', uri: U });
    assert.equal(v.description, '→ judge/verify · reward 0.50');
    assert.equal(v.contextValue, 'hudTask.verifier');
    assert.match(v.tooltip!, /last run: reward 0\.50/);
  });

  test('nodes open at their definition line', () => {
    const m = new EnvironmentsModel((u) => u);
    m.setIndex(index);
    assert.deepEqual(m.location({ kind: 'task', ref: 'envs/env.py::task', uri: U }), { uri: U, line: 15 });
    assert.deepEqual(m.location({ kind: 'template', env: 'judge', templateId: 'verify', uri: U }), {
      uri: U,
      line: 11,
    });
    assert.equal(m.location({ kind: 'group', group: 'harbor' }), undefined);
    // The verifier link opens the verifier's template, not the call site.
    assert.deepEqual(m.location({ kind: 'verifier', ref: 'envs/env.py::task', uri: U }), { uri: U, line: 11 });
  });

  test('two folders that each hold an env.py: every row has an id of its own and opens its own file', () => {
    const m = new EnvironmentsModel((u) => u);
    m.setIndex(twoCheckouts());
    const rows: EnvNode[] = [];
    const walk = (node?: EnvNode) =>
      m.children(node).forEach((c) => {
        rows.push(c);
        walk(c);
      });
    walk();
    const ids = rows.map((n) => m.view(n).id);
    assert.equal(new Set(ids).size, ids.length, `ids: ${ids.join(', ')}`);
    // One environment, a template row per file, and under each its own task.
    assert.deepEqual(
      rows.map((n) => n.kind),
      ['environment', 'template', 'task', 'template', 'task'],
    );
    assert.deepEqual(
      rows.filter((n) => n.kind === 'template').map((n) => m.view(n).description),
      [`${A} · 1 task`, `${B} · 1 task`],
    );
    const opened = rows.filter((n) => n.kind !== 'environment').map((n) => m.location(n));
    assert.deepEqual(opened, [
      { uri: A, line: 6 },
      { uri: A, line: 15 },
      { uri: B, line: 8 },
      { uri: B, line: 17 },
    ]);
  });

  test("two folders that each hold an env.py: each task shows its own folder's last run", () => {
    // Each folder writes its traces to its own trace folder, which the outcomes are kept by (runsModel.ts).
    const m = new EnvironmentsModel(
      (u) => u,
      (uri) => (uri === A ? '/a/.hud-studio/traces' : uri === B ? '/b/.hud-studio/traces' : undefined),
    );
    m.setIndex(twoCheckouts());
    const shown = () => [A, B].map((uri) => m.view({ kind: 'task', ref: 'env.py::task', uri }).description);
    m.setOutcomes(new Map([[outcomeKey('env.py::task', '/b/.hud-studio/traces'), rewarded(0.5)]]));
    assert.deepEqual(shown(), ['', 'reward 0.50']);
    // A run that wrote no trace cannot say its folder: it shows where no run of the folder's own does.
    m.setOutcomes(
      new Map([
        [outcomeKey('env.py::task', '/b/.hud-studio/traces'), rewarded(0.5)],
        [outcomeKey('env.py::task', undefined), rewarded(0.25)],
      ]),
    );
    assert.deepEqual(shown(), ['reward 0.25', 'reward 0.50']);
  });
});
