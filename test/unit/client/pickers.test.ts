/**
 * The pickers a Runs or Environments command falls back on when no row came
 * with it (the Command Palette, or VS Code handing none while the view
 * redraws), over the recording `vscode` (fakeVscode/vscode.ts): a row's
 * rollout is taken without asking, a rollout the view dropped is said so,
 * and otherwise the user picks among the finished runs or the templates.
 */
import assert from 'node:assert/strict';
import { before, beforeEach, describe, test } from 'node:test';
import type { IndexedTemplate, WorkspaceIndex } from '../../../common/lspMessages';
import { RunsModel } from '../../../client/src/runsModel';
import { loadWithFakeVscode } from './fakeVscode/load';
import type * as Fake from './fakeVscode/vscode';
import { T0, storedTrace } from './traceFixtures';

type PickRollout = typeof import('../../../client/src/ui/pickRollout');
type PickTemplate = typeof import('../../../client/src/ui/pickTemplate');

describe('pickers for commands that came without a row', () => {
  let vscode: typeof Fake;
  let rollouts: PickRollout;
  let templates: PickTemplate;

  before(() => {
    vscode = loadWithFakeVscode<typeof Fake>(__filename, 'vscode');
    rollouts = loadWithFakeVscode<PickRollout>(__filename, '../../../client/src/ui/pickRollout');
    templates = loadWithFakeVscode<PickTemplate>(__filename, '../../../client/src/ui/pickTemplate');
  });
  beforeEach(() => {
    vscode.shown.messages.length = 0;
    vscode.shown.picks.length = 0;
    vscode.shown.pick = () => undefined;
  });

  const twoRuns = () => {
    const m = new RunsModel(() => T0 + 9000);
    m.addTrace(storedTrace('older', 1000), '/tr/older.hudtrace.json');
    m.addTrace(storedTrace('newer', 2000), '/tr/newer.hudtrace.json');
    return m;
  };

  test("a row's rollout is acted on without asking", async () => {
    const m = twoRuns();
    const r = await rollouts.rolloutFrom(m, { kind: 'rollout', rolloutId: 'older' }, 'Which?', true);
    assert.equal(r?.id, 'older');
    assert.deepEqual(vscode.shown.picks, []);
  });

  test('a rollout the Runs view no longer holds is said so, and nothing else is offered in its place', async () => {
    const r = await rollouts.rolloutFrom(twoRuns(), { rolloutId: 'cleared' }, 'Which?', true);
    assert.equal(r, undefined);
    assert.deepEqual(vscode.shown.picks, []);
    assert.deepEqual(vscode.shown.messages, ['HUD Studio: that run is no longer in the Runs view.']);
  });

  test('no row: the user picks among the finished runs, newest first, and gets the one picked', async () => {
    const m = twoRuns();
    vscode.shown.pick = (items) => items[1];
    const r = await rollouts.rolloutFrom(m, undefined, 'Compare which run with the one before it?', true);
    assert.equal(r?.id, 'older');
    assert.equal(vscode.shown.picks.length, 1);
    const { title, labels } = vscode.shown.picks[0]!;
    assert.equal(title, 'Compare which run with the one before it?');
    assert.deepEqual(labels, [
      m.view({ kind: 'rollout', rolloutId: 'newer' }).label,
      m.view({ kind: 'rollout', rolloutId: 'older' }).label,
    ]);
    vscode.shown.pick = () => undefined;
    assert.equal(await rollouts.pickRollout(m, 'Which?', true), undefined, 'a dismissed pick acts on nothing');
  });

  test('commands that read stored traces by id keep an id the Runs view dropped, and ask only without one', async () => {
    const m = twoRuns();
    assert.equal(await rollouts.rolloutIdFrom(m, { rolloutId: 'cleared' }, 'Which?', true), 'cleared');
    assert.equal(vscode.shown.picks.length, 0, 'no pick');
    assert.equal(vscode.shown.messages.length, 0, 'no message');
    vscode.shown.pick = (items) => items[0];
    assert.equal(await rollouts.rolloutIdFrom(m, undefined, 'Open which run?', false), 'newer');
    assert.equal(vscode.shown.picks[0]?.title, 'Open which run?');
  });

  test('no run to pick from: the user is told, not shown an empty list', async () => {
    assert.equal(await rollouts.pickRollout(new RunsModel(), 'Regrade which run?', true), undefined);
    assert.deepEqual(vscode.shown.picks, []);
    assert.deepEqual(vscode.shown.messages, ['HUD Studio: no finished run with a trace file in the Runs view yet.']);
  });

  test('templates are offered as environment/id with their descriptions; none is said so', async () => {
    const template = (env: string, id: string): IndexedTemplate =>
      ({ id, env, functionName: id, description: `${id} things`, uri: 'file:///w/env.py' }) as IndexedTemplate;
    const index: WorkspaceIndex = {
      version: 1,
      environments: [],
      templates: [template('capitals', 'capital'), template('math', 'sum')],
      tasks: [],
    };
    vscode.shown.pick = (items) => items.find((i) => i.label === 'math/sum');
    const t = await templates.pickTemplate(index, 'Run the tasks of which template?');
    assert.equal(t?.id, 'sum');
    assert.deepEqual(vscode.shown.picks, [
      { title: 'Run the tasks of which template?', labels: ['capitals/capital', 'math/sum'] },
    ]);
    assert.equal(await templates.pickTemplate({ ...index, templates: [] }, 'Which?'), undefined);
    assert.deepEqual(vscode.shown.messages, ['HUD Studio: no templates found in this workspace.']);
  });
});
