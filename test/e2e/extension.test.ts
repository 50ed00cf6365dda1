/**
 * The packaged extension in a real VS Code (code-server) driven by Chromium,
 * with real rollouts on the real Docker engine: the .vsix installs and
 * activates without errors; env.py shows the Run CodeLens and the HUD Studio
 * views; a click on Run shows the reward; the trace explorer opens from the
 * CodeLens and as the custom editor of a trace file; the ask agent takes a
 * typed answer and Escape cancels without leaking containers; a running
 * rollout opens from the Runs view and survives being hidden; a Harbor
 * task.toml runs; the Testing view runs everything without asking; the
 * language server restarts on command and its log opens.
 * The steps share one session and run in order.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Session, openSession, packageVsix, processGroupOf, tempDir, vsixEntries } from './codeServer';
import type { Locator, Page } from 'playwright-core';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'python', 'verifier_same_env');
const HARBOR_FIXTURE = join(ROOT, 'test', 'fixtures', 'harbor', 'shared-basic');
const EXTENSION_ID = 'hud-studio.hud-studio';

/**
 * Containers the engine started for this code-server: the owner pid label
 * names a process of its process group (other rollouts may share the daemon).
 */
function managedContainers(group: number): number {
  const out = execFileSync(
    'docker',
    ['ps', '-a', '--filter', 'label=dev.hud-studio.managed', '--format', '{{.Label "dev.hud-studio.owner-pid"}}'],
    { encoding: 'utf8' },
  );
  return out
    .split('\n')
    .filter(Boolean)
    .filter((pid) => processGroupOf(Number(pid)) === group).length;
}

describe('HUD Studio in code-server', () => {
  let dir: string;
  let vsix: string;
  let s: Session | undefined;

  before(async () => {
    dir = tempDir('hud-studio-vsix-');
    vsix = packageVsix(dir);
    s = await openSession({
      name: 'main',
      vsix,
      fixture: FIXTURE,
      extra: { 'harbor/shared-basic': HARBOR_FIXTURE },
      settings: {
        'hudStudio.agent': 'fixed',
        'hudStudio.agentAnswer': 'secret',
        'hudStudio.runtime': 'docker',
      },
    });
  });

  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the .vsix holds the bundles and runtime, and no sources, maps or tests', () => {
    const files = vsixEntries(vsix)
      .filter((f) => f.startsWith('extension/'))
      .map((f) => f.slice('extension/'.length));
    for (const needed of [
      'package.json',
      'dist/extension.js',
      'dist/engine.js',
      'dist/server.js',
      'dist/media/explorer.js',
      'dist/tree-sitter.wasm',
      'runtime/python/hud/__init__.py',
      'syntaxes/hud-rollout-log.tmLanguage.json',
      'media/icons/hud.svg',
    ]) {
      assert.ok(files.includes(needed), `${needed} missing from the .vsix`);
    }
    const stray = files.filter(
      (f) => /\.(ts|map)$/.test(f) || /^(client|server|test|scripts|node_modules|media\/src)\//.test(f),
    );
    assert.deepEqual(stray, []);
  });

  test('open env.py: the Run task CodeLens and the HUD Studio views appear', async () => {
    const page = s!.page;
    await page.keyboard.press('Control+P');
    const quickOpen = page.locator('.quick-input-widget input');
    await quickOpen.waitFor({ timeout: 60_000 });
    await quickOpen.fill('env.py');
    await page
      .locator('.quick-input-list .monaco-list-row.focused', { hasText: 'env.py' })
      .first()
      .waitFor({ timeout: 60_000 });
    await quickOpen.press('Enter');
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Environment("workspace")' })
      .waitFor({ timeout: 30_000 });

    const runLens = page.locator('.codelens-decoration a', { hasText: 'Run task' });
    await runLens.first().waitFor({ timeout: 60_000 });
    assert.match((await runLens.first().textContent()) ?? '', /Run task · verifier workspace\/verify/);

    await page.locator('.activitybar [aria-label^="HUD Studio"]').first().click();
    const envView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Environments' }) });
    await envView.locator('.monaco-list-row', { hasText: 'workspace' }).first().waitFor({ timeout: 30_000 });
    await envView.locator('.monaco-list-row', { hasText: 'solve' }).first().waitFor({ timeout: 30_000 });
    await envView.locator('.monaco-list-row', { hasText: 'task' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.pane-header', { hasText: 'Runs' }).first().waitFor();
    await s!.shot('01-codelens-and-views');
  });

  test('click Run: the rollout runs in Docker and the reward is shown', async () => {
    const page = s!.page;
    await page.locator('.codelens-decoration a', { hasText: 'Run task' }).first().click();
    // The result notification and the Runs view both carry the reward as text.
    const toast = page.locator('.notification-toast', { hasText: /task: reward \d\.\d\d/ });
    await toast.first().waitFor({ timeout: 180_000 });
    const text = (await toast.first().textContent()) ?? '';
    await s!.shot('02-reward-notification');
    assert.match(text, /task: reward 1\.00/, `notification: ${text}`);

    const runsView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) });
    const rollout = runsView.locator('.monaco-list-row', { hasText: 'reward 1.00' });
    await rollout.first().waitFor({ timeout: 30_000 });
    await s!.shot('03-runs-view');
  });

  test('the CodeLens after the run opens the rollout in the trace explorer', async () => {
    const page = s!.page;
    await page
      .locator('.notification-toast .codicon-notifications-clear, .notification-toast .codicon-close')
      .first()
      .click({ timeout: 2000 })
      .catch(() => undefined);
    const traceLens = page.locator('.codelens-decoration a', { hasText: 'reward 1.00' });
    await traceLens.first().waitFor({ timeout: 30_000 });
    await traceLens.first().click();
    await page.locator('.tab', { hasText: 'Trace' }).first().waitFor({ timeout: 30_000 });
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('body', { hasText: 'reward (verifier)' }).waitFor({ timeout: 30_000 });
    const body = (await frame.locator('body').innerText()).replace(/\s+/g, ' ');
    await s!.shot('04-trace-explorer');
    assert.match(body, /workspace \/ solve completed/);
    assert.match(body, /\b1(\.0+)? reward \(verifier\)/);
    assert.match(body, /Answer secret/);
    assert.match(body, /Provider docker/, 'the rollout did not run on the Docker runtime');
    assert.match(body, /isolation: container/);
  });

  test('the ask agent shows the prompt and sends what is typed', async () => {
    const page = s!.page;
    const { quick, input } = await askRunUpToPrompt(page);
    await quick.locator('.quick-input-title', { hasText: 'HUD Studio · task' }).waitFor({ timeout: 60_000 });
    await s!.shot('05-ask-agent');
    await input.fill('secret');
    await input.press('Enter');

    const runsView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) });
    // Clicking the active container's icon would hide the side bar: only click when it is not shown.
    if (!(await runsView.first().isVisible()))
      await page.locator('.activitybar [aria-label^="HUD Studio"]').first().click();
    const job = runsView.locator('.monaco-list-row', { hasText: 'Run task (ask)' });
    await job.first().waitFor({ timeout: 60_000 });
    await runsView
      .locator('.monaco-list-row', { hasText: /Run task \(ask\).*reward 1\.00/ })
      .first()
      .waitFor({ timeout: 120_000 });
    await s!.shot('06-ask-agent-reward');
  });

  test('a running rollout opens from the Runs view, survives being hidden, and updates live', async () => {
    const page = s!.page;
    const quick = page.locator('.quick-input-widget');
    await page.keyboard.press('F1');
    await quick.locator('input').first().fill('>View: Close All Editors');
    await quick
      .locator('.monaco-list-row.focused', { hasText: 'Close All Editors' })
      .first()
      .waitFor({ timeout: 60_000 });
    await quick.locator('input').first().press('Enter');
    await page.locator('.tab').first().waitFor({ state: 'detached', timeout: 60_000 });

    // A second editor to switch to later (Quick Open would replace the ask prompt, so open it first).
    await page.keyboard.press('Control+P');
    const quickOpen = page.locator('.quick-input-widget input');
    await quickOpen.fill('env.py');
    await page
      .locator('.quick-input-list .monaco-list-row.focused', { hasText: 'env.py' })
      .first()
      .waitFor({ timeout: 60_000 });
    await quickOpen.press('Enter');
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Environment("workspace")' })
      .waitFor({ timeout: 30_000 });

    // The ask agent holds the rollout at its prompt (which stays open on focus loss): it is running.
    const { input } = await askRunUpToPrompt(page);
    const runsView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) });
    await runsView
      .locator('.monaco-list-row', { hasText: /task \(env\.py\).*running/ })
      .first()
      .click();
    const traceTab = page.locator('.tab', { hasText: 'Trace' }).first();
    await traceTab.waitFor({ timeout: 30_000 });
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('[data-testid=status]', { hasText: 'running' }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('[data-testid=load-error]').count(), 0);
    await s!.shot('07-running-rollout');

    // Hidden behind another editor, the webview is unloaded; shown again it sends ready again. The ask
    // prompt covers the tab bar, so the tabs get their mouse-down directly (what opens an editor).
    await page.locator('.tab', { hasText: 'env.py' }).first().dispatchEvent('mousedown', { button: 0 });
    await page.locator('.tab.active', { hasText: 'env.py' }).first().waitFor({ timeout: 30_000 });
    await page.locator('iframe.webview.ready').first().waitFor({ state: 'hidden', timeout: 30_000 });
    await traceTab.dispatchEvent('mousedown', { button: 0 });
    await frame.locator('[data-testid=status]', { hasText: 'running' }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('[data-testid=load-error]').count(), 0, 'a hidden live panel shown again errored');

    // The prompt is still waiting: answer it, and the open panel follows the rollout to its reward.
    await input.fill('secret');
    await input.press('Enter');
    await frame.locator('[data-testid=status]', { hasText: 'completed' }).waitFor({ timeout: 120_000 });
    assert.match(await frame.locator('[data-testid=reward]').innerText(), /^1(\.0+)?$/);
    assert.equal(await frame.locator('[data-testid=load-error]').count(), 0);
    await s!.shot('07-running-rollout-ended');
  });

  test('Escape at the ask prompt cancels the rollout and leaves no container behind', async () => {
    const page = s!.page;
    await askRunUpToPrompt(page);
    assert.ok(managedContainers(s!.processGroup) > 0, 'the actor container should exist while the agent is asked');
    await page.keyboard.press('Escape');

    const runsView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) });
    await runsView
      .locator('.monaco-list-row', { hasText: /task \(env\.py\).*cancelled/ })
      .first()
      .waitFor({ timeout: 60_000 });
    await s!.shot('07-ask-cancelled');
    assert.equal(managedContainers(s!.processGroup), 0, 'a cancelled rollout left containers behind');
  });

  test('a Harbor task.toml gets the Run task CodeLens and runs its trial with the oracle', async () => {
    const page = s!.page;
    const envView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Environments' }) });
    await envView.locator('.monaco-list-row', { hasText: 'Harbor tasks' }).first().waitFor({ timeout: 30_000 });
    await envView.locator('.monaco-list-row', { hasText: 'shared-basic' }).first().waitFor({ timeout: 30_000 });

    await page.keyboard.press('Control+P');
    const quickOpen = page.locator('.quick-input-widget input');
    await quickOpen.fill('harbor/shared-basic/task.toml');
    await page
      .locator('.quick-input-list .monaco-list-row.focused', { hasText: 'task.toml' })
      .first()
      .waitFor({ timeout: 60_000 });
    await quickOpen.press('Enter');
    await page.locator('.monaco-editor .view-lines', { hasText: 'schema_version' }).waitFor({ timeout: 30_000 });
    const runLens = page.locator('.codelens-decoration a', { hasText: 'Run task' });
    await runLens.first().waitFor({ timeout: 60_000 });
    await runLens.first().click();

    const toast = page.locator('.notification-toast', { hasText: /shared-basic: (reward \d\.\d\d|errored)/ });
    await toast.first().waitFor({ timeout: 300_000 });
    const text = (await toast.first().textContent()) ?? '';
    await s!.shot('08-harbor-reward');
    assert.match(text, /shared-basic: reward 1\.00/, `notification: ${text}`);
    const runsView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) });
    await runsView
      .locator('.monaco-list-row', { hasText: /Run hud-studio-fixtures\/shared-basic.*1 rollout · reward 1\.00/ })
      .first()
      .waitFor({ timeout: 10_000 });
  });

  test('Testing view: Run Tests runs every task with the batch agent and marks them passed', async () => {
    const page = s!.page;
    await page.locator('.activitybar [aria-label^="Testing"]').first().click();
    const rows = page.locator('.test-explorer .monaco-list-row');
    await rows.filter({ hasText: 'env.py' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.action-label[aria-label^="Run Tests"]').first().click();
    // "Run all" never asks: with hudStudio.agent = fixed the batch uses it; the Harbor trial uses the oracle.
    await page.locator('.test-explorer .monaco-list-row[aria-label^="env.py (Passed)"]').waitFor({ timeout: 180_000 });
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^="harbor/shared-basic/task.toml (Passed)"]')
      .waitFor({ timeout: 180_000 });
    await s!.shot('09-testing-view');
    // The rows may already show Passed from the editor runs above: the Runs view proves this run happened.
    await page.locator('.activitybar [aria-label^="HUD Studio"]').first().click();
    const runsView = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Runs' }) });
    await runsView
      .locator('.monaco-list-row', { hasText: /Test 2 tasks.*2 rollouts · mean 1\.00$/ })
      .first()
      .waitFor({ timeout: 180_000 });
    await s!.shot('10-testing-run-in-runs-view');
    // Editor batches go through the same pool as `hud-studio eval`: a job summary beside the traces.
    const traceDir = join(s!.workspace, '.hud-studio', 'traces');
    const jobs = readdirSync(traceDir)
      .filter((n) => n.endsWith('.hudjob.json'))
      .map(
        (n) =>
          JSON.parse(readFileSync(join(traceDir, n), 'utf8')) as { label: string; total: number; completed: number },
      );
    assert.ok(
      jobs.some((j) => j.label === 'Test 2 tasks' && j.total === 2 && j.completed === 2),
      `no job summary of the Testing run: ${JSON.stringify(jobs)}`,
    );
  });

  test('a *.hudtrace.json file opens in the trace explorer custom editor', async () => {
    const page = s!.page;
    const quick = page.locator('.quick-input-widget');
    const input = quick.locator('input').first();
    await page.keyboard.press('F1');
    await input.fill('>View: Close All Editors');
    await quick
      .locator('.monaco-list-row.focused', { hasText: 'Close All Editors' })
      .first()
      .waitFor({ timeout: 60_000 });
    await input.press('Enter');
    await page.locator('.tab').first().waitFor({ state: 'detached', timeout: 60_000 });

    // From the Explorer, as a person opens any file: the custom editor claims *.hudtrace.json.
    const traceDir = join(s!.workspace, '.hud-studio', 'traces');
    const file = readdirSync(traceDir)
      .filter((n) => n.includes('shared-basic') && n.endsWith('.hudtrace.json'))
      .sort()
      .at(-1);
    assert.ok(file, `no shared-basic trace in ${traceDir}`);
    await page.locator('.activitybar [aria-label^="Explorer"]').first().click();
    const tree = page.locator('.explorer-folders-view');
    const fileRow = tree.locator('.monaco-list-row', { hasText: file });
    const folderRow = tree.locator('.monaco-list-row', { hasText: '.hud-studio' }).first();
    await folderRow.waitFor({ timeout: 60_000 });
    // Compact folders show ".hud-studio/traces" as one row; expand until the file shows.
    for (let i = 0; i < 3 && !(await fileRow.first().isVisible()); i++) {
      const collapsed = tree
        .locator('.monaco-list-row[aria-expanded="false"]', { hasText: /\.hud-studio|traces/ })
        .first();
      if (await collapsed.isVisible()) await collapsed.click();
      await page.waitForTimeout(500);
    }
    await fileRow.first().click();
    await page.locator('.tab', { hasText: '.hudtrace.json' }).first().waitFor({ timeout: 60_000 });
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('body', { hasText: 'reward' }).waitFor({ timeout: 30_000 });
    const body = (await frame.locator('body').innerText()).replace(/\s+/g, ' ');
    await s!.shot('11-trace-file-custom-editor');
    assert.match(body, /hud-studio-fixtures\/shared-basic/);
    assert.match(body, /completed/);
  });

  test('Restart Language Server brings a new server up; Show Server Log shows what happened', async () => {
    const page = s!.page;
    const quick = page.locator('.quick-input-widget');
    const input = quick.locator('input').first();
    const command = async (title: string) => {
      await page.keyboard.press('F1');
      await input.fill(`>HUD Studio: ${title}`);
      await quick.locator('.monaco-list-row.focused', { hasText: title }).first().waitFor({ timeout: 60_000 });
      await input.press('Enter');
    };
    await command('Restart Language Server');
    await command('Show Server Log');
    const output = page.locator('.part.panel .view-lines');
    await output.filter({ hasText: 'restarting the language server' }).first().waitFor({ timeout: 60_000 });
    await s!.shot('12-server-restarted');
    // The new server scans the workspace again and says so in the same log (its file, read as it grows).
    const restartedAndIndexed = () => /restarting the language server[\s\S]*indexed \d+ files/.test(s!.extHostLog());
    const deadline = Date.now() + 60_000;
    while (!restartedAndIndexed() && Date.now() < deadline) await page.waitForTimeout(250);
    assert.ok(restartedAndIndexed(), 'the restarted server did not index the workspace');

    await page.keyboard.press('Control+P');
    await input.fill('env.py');
    await quick.locator('.monaco-list-row.focused', { hasText: 'env.py' }).first().waitFor({ timeout: 60_000 });
    await input.press('Enter');
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Environment("workspace")' })
      .waitFor({ timeout: 30_000 });
    // CodeLens from the new server (the output panel leaves room for the top of the file only).
    await page.locator('.codelens-decoration a', { hasText: 'Run template' }).first().waitFor({ timeout: 60_000 });
    await s!.shot('13-codelens-after-restart');
  });

  test('the extension activated and its host logged no error from it', async (t) => {
    const log = s!.extHostLog();
    const activated = /HUD Studio activated in ([\d.]+) ms/.exec(log);
    assert.ok(activated, 'the extension did not log the end of activate()');
    t.diagnostic(`activate() took ${activated[1]} ms`);
    assert.match(
      log,
      new RegExp(`ExtensionService#_doActivateExtension ${EXTENSION_ID.replace('.', '\\.')}`),
      'no activation line for HUD Studio in the extension host log',
    );
    // An entry is a timestamped line plus its continuation lines (stack traces).
    const entries = log.split(/\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \[)/);
    const ours = entries.filter((e) => /^\S+ \S+ \[error\]/.test(e) && /hud-studio|HUD Studio/i.test(e));
    assert.deepEqual(ours, []);
    assert.doesNotMatch(log, new RegExp(`Activating extension '?${EXTENSION_ID}'? failed`, 'i'));
  });
});

/**
 * Command palette -> "Run Task with Agent" -> env.py::task -> ask, then waits
 * until the ask agent shows the environment's prompt (which comes over the
 * control channel of a real container, started first).
 */
async function askRunUpToPrompt(page: Page): Promise<{ quick: Locator; input: Locator }> {
  const quick = page.locator('.quick-input-widget');
  const input = quick.locator('input').first();
  const step = async (title: string) =>
    quick.locator('.quick-input-title', { hasText: title }).waitFor({ timeout: 60_000 });
  // Enter only once the row is rendered and focused, into the input itself: the widget fades
  // in, and an Enter sent meanwhile lands elsewhere or accepts nothing.
  const choose = async (label: string | RegExp) => {
    await quick.locator('.monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout: 60_000 });
    await input.press('Enter');
  };
  await page.keyboard.press('F1');
  await input.fill('>HUD Studio: Run Task with Agent');
  await choose('Run Task with Agent');
  await step('Run which task?');
  await choose('env.py::task');
  await step('Run with which agent?');
  await input.fill('ask');
  await choose('show the prompt, type the answer');
  await quick
    .locator('.quick-input-message', { hasText: 'Write the secret to the target system.' })
    .waitFor({ timeout: 120_000 });
  return { quick, input };
}
