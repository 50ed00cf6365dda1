/**
 * A multi-root workspace in a real VS Code: a folder added to the
 * `.code-workspace` file while the window is open shows its tasks in the
 * Testing view and its earlier runs in the Runs view, and removing it takes
 * its tasks away, with no reload and no restart of the extension (VS Code
 * tells the language server, which reads or forgets the folder).
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, until, useSession, type Session } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'e2e', 'fixtures', 'multi-root');
const WORKSPACE_FILE = 'multi.code-workspace';

function setFolders({ workspace }: Session, folders: string[]): void {
  writeFileSync(
    join(workspace, WORKSPACE_FILE),
    JSON.stringify({ folders: folders.map((path) => ({ path })) }, null, 2),
  );
}

function fileRow({ page }: Session, file: string) {
  return page.locator('.test-explorer .monaco-list-row', { hasText: file }).first();
}

describe('workspace folders added and removed in code-server', () => {
  const e2e = useSession({
    name: 'workspace-folders',
    fixture: FIXTURE,
    open: WORKSPACE_FILE,
    settings: { 'hudStudio.runtime': 'local' },
  });

  e2e.test('an added folder brings its tasks, a removed one takes them away', async (s) => {
    const { page, ui, shot, extHostLog } = s;
    // A Python file activates the extension.
    await ui.quickOpen('alpha_env.py');
    await page.locator('.monaco-editor .view-lines', { hasText: 'Environment("alpha")' }).waitFor({ timeout: 30_000 });
    await ui.showContainer('Testing');
    await fileRow(s, 'alpha_env.py').waitFor({ timeout: 60_000 });
    assert.equal(await fileRow(s, 'beta_env.py').count(), 0, 'beta is not a folder of the workspace yet');

    // An earlier run of beta's task, stored where its folder keeps traces.
    const traces = join(s.workspace, 'beta', '.hud-studio', 'traces');
    mkdirSync(traces, { recursive: true });
    const trace = JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'traces', 'completed.hudtrace.json'), 'utf8'));
    trace.task.ref = 'beta_env.py::second_task';
    writeFileSync(join(traces, 'earlier.hudtrace.json'), JSON.stringify(trace));

    setFolders(s, ['alpha', 'beta']);
    await fileRow(s, 'beta_env.py').waitFor({ timeout: 60_000 });
    await ui.expand(fileRow(s, 'beta_env.py'));
    await page
      .locator('.test-explorer .monaco-list-row', { hasText: 'second_task' })
      .first()
      .waitFor({ timeout: 30_000 });
    await shot('workspace-folders-01-added');
    await ui.showContainer('HUD Studio');
    await ui
      .view('Runs')
      .locator('.monaco-list-row', { hasText: 'second_task (beta_env.py)' })
      .first()
      .waitFor({ timeout: 30_000 });
    await shot('workspace-folders-02-earlier-run');
    await until('the server to log the added folder', () =>
      /workspace folders: 1 added, 0 removed; indexed 1 files/.test(extHostLog()),
    );

    // A second checkout of alpha: the same file name, environment, template and task reference in another
    // folder. Each gets rows of its own in the Environments view (one id for both used to break the view).
    mkdirSync(join(s.workspace, 'gamma'));
    cpSync(join(s.workspace, 'alpha', 'alpha_env.py'), join(s.workspace, 'gamma', 'alpha_env.py'));
    // An earlier run of gamma's task: one reference in two folders, and the reward is gamma's alone.
    const gammaTraces = join(s.workspace, 'gamma', '.hud-studio', 'traces');
    mkdirSync(gammaTraces, { recursive: true });
    writeFileSync(
      join(gammaTraces, 'earlier.hudtrace.json'),
      JSON.stringify({
        ...trace,
        rolloutId: 'r-gamma-earlier',
        task: { ...trace.task, ref: 'alpha_env.py::first_task' },
      }),
    );
    setFolders(s, ['alpha', 'beta', 'gamma']);
    const firstTasks = ui.view('Environments').locator('.monaco-list-row', { hasText: 'first_task' });
    await firstTasks.nth(1).waitFor({ timeout: 60_000 });
    assert.equal(await firstTasks.count(), 2);
    await firstTasks.filter({ hasText: 'reward 0.75' }).first().waitFor({ timeout: 30_000 });
    assert.equal(await firstTasks.filter({ hasText: 'reward 0.75' }).count(), 1, "alpha's task was never run");
    await shot('workspace-folders-03-two-checkouts');
    await ui.showContainer('Testing');
    await fileRow(s, 'gamma/alpha_env.py').waitFor({ timeout: 30_000 });

    setFolders(s, ['alpha']);
    await fileRow(s, 'beta_env.py').waitFor({ state: 'detached', timeout: 60_000 });
    await fileRow(s, 'gamma/alpha_env.py').waitFor({ state: 'detached', timeout: 60_000 });
    await fileRow(s, 'alpha_env.py').waitFor({ timeout: 10_000 });
    await shot('workspace-folders-04-removed');
    await until('the server to log the removed folders', () =>
      /workspace folders: 0 added, 2 removed/.test(extHostLog()),
    );
    // Gamma again, last (an open file would stay indexed after its folder went): its stored run is gamma's, so
    // the Regrade lens stands over gamma's template, not over alpha's. Each template row opens its own file.
    setFolders(s, ['alpha', 'gamma']);
    await ui.showContainer('HUD Studio');
    const templateRow = (file: string) =>
      ui.view('Environments').locator('.monaco-list-row', { hasText: 'greet' }).filter({ hasText: file }).first();
    await templateRow('gamma/alpha_env.py').waitFor({ timeout: 60_000 });
    await ui.dismissToasts();
    await templateRow('gamma/alpha_env.py').click();
    await page.locator('.breadcrumbs-control', { hasText: 'gamma' }).first().waitFor({ timeout: 10_000 });
    await ui.lens('Regrade 1 stored run').first().waitFor({ timeout: 60_000 });
    await templateRow('alpha/alpha_env.py').click();
    await page.locator('.breadcrumbs-control', { hasText: 'alpha' }).first().waitFor({ timeout: 10_000 });
    await page.locator('.breadcrumbs-control', { hasText: 'gamma' }).waitFor({ state: 'detached', timeout: 10_000 });
    await ui.lens('Run task').first().waitFor({ timeout: 30_000 });
    assert.equal(await ui.lens(/Regrade/).count(), 0, "alpha's template has no stored run");
    // Told, not restarted: the extension activated once.
    const activations = extHostLog().match(/HUD Studio activated in/g) ?? [];
    assert.equal(activations.length, 1, extHostLog());
  });
});
