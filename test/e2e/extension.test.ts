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
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, processGroupOf, until, useSession, vsixEntries } from './codeServer';
import type { Workbench } from './workbench';
import { SERVER_V8_FLAGS } from '../../server/src/v8Flags';

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

/** The command lines of this code-server's language servers (dist/server.js of the installed extension). */
function serverCommandLines(group: number): string[][] {
  const lines: string[][] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    if (processGroupOf(Number(pid)) !== group) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    if (argv.some((a) => a.endsWith('/dist/server.js'))) lines.push(argv);
  }
  return lines;
}

describe('HUD Studio in code-server', () => {
  const e2e = useSession({
    name: 'main',
    fixture: FIXTURE,
    extra: { 'harbor/shared-basic': HARBOR_FIXTURE },
    settings: {
      'hudStudio.agent': 'fixed',
      'hudStudio.agentAnswer': 'secret',
      'hudStudio.runtime': 'docker',
    },
  });

  e2e.test('the .vsix holds the bundles and runtime, and no sources, maps or tests', async ({ vsix }) => {
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

  e2e.test('open env.py: the Run task CodeLens and the HUD Studio views appear', async ({ page, ui, shot }) => {
    await ui.quickOpen('env.py');
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Environment("workspace")' })
      .waitFor({ timeout: 30_000 });

    const runLens = ui.lens('Run task');
    await runLens.first().waitFor({ timeout: 60_000 });
    assert.match((await runLens.first().textContent()) ?? '', /Run task · verifier workspace\/verify/);

    await ui.showContainer('HUD Studio');
    const envView = ui.view('Environments');
    await envView.locator('.monaco-list-row', { hasText: 'workspace' }).first().waitFor({ timeout: 30_000 });
    await envView.locator('.monaco-list-row', { hasText: 'solve' }).first().waitFor({ timeout: 30_000 });
    await envView.locator('.monaco-list-row', { hasText: 'task' }).first().waitFor({ timeout: 30_000 });
    await page.locator('.pane-header', { hasText: 'Runs' }).first().waitFor();
    await shot('01-codelens-and-views');
  });

  e2e.test('click Run: the rollout runs in Docker and the reward is shown', async ({ page, ui, shot }) => {
    await ui.lens('Run task').first().click();
    // The result notification and the Runs view both carry the reward as text.
    const toast = page.locator('.notification-toast', { hasText: /task: reward \d\.\d\d/ });
    await toast.first().waitFor({ timeout: 180_000 });
    const text = (await toast.first().textContent()) ?? '';
    await shot('02-reward-notification');
    assert.match(text, /task: reward 1\.00/, `notification: ${text}`);

    const rollout = ui.view('Runs').locator('.monaco-list-row', { hasText: 'reward 1.00' });
    await rollout.first().waitFor({ timeout: 30_000 });
    await shot('03-runs-view');
  });

  e2e.test('the CodeLens after the run opens the rollout in the trace explorer', async ({ ui, shot }) => {
    await ui.dismissToasts();
    const body = await ui.openTraceFromLens('reward 1.00', 'reward (verifier)');
    await shot('04-trace-explorer');
    assert.match(body, /workspace \/ solve completed/);
    assert.match(body, /\b1(\.0+)? reward \(verifier\)/);
    assert.match(body, /Answer secret/);
    assert.match(body, /Provider docker/, 'the rollout did not run on the Docker runtime');
    assert.match(body, /isolation: container/);
  });

  e2e.test('the ask agent shows the prompt and sends what is typed', async ({ ui, shot }) => {
    await askRunUpToPrompt(ui);
    await ui.quickTitle('HUD Studio · task');
    await shot('05-ask-agent');
    await ui.answer('secret');

    const runsView = ui.view('Runs');
    await ui.showContainer('HUD Studio');
    const job = runsView.locator('.monaco-list-row', { hasText: 'Run task (ask)' });
    await job.first().waitFor({ timeout: 60_000 });
    await runsView
      .locator('.monaco-list-row', { hasText: /Run task \(ask\).*reward 1\.00/ })
      .first()
      .waitFor({ timeout: 120_000 });
    await shot('06-ask-agent-reward');
  });

  e2e.test(
    'a running rollout opens from the Runs view, survives being hidden, and updates live',
    async ({ page, ui, shot }) => {
      await ui.closeAllEditors();

      // A second editor to switch to later (Quick Open would replace the ask prompt, so open it first).
      await ui.quickOpen('env.py');
      await page
        .locator('.monaco-editor .view-lines', { hasText: 'Environment("workspace")' })
        .waitFor({ timeout: 30_000 });

      // The ask agent holds the rollout at its prompt (which stays open on focus loss): it is running.
      await askRunUpToPrompt(ui);
      await ui
        .view('Runs')
        .locator('.monaco-list-row', { hasText: /task \(env\.py\).*running/ })
        .first()
        .click();
      const traceTab = page.locator('.tab', { hasText: 'Trace' }).first();
      await traceTab.waitFor({ timeout: 30_000 });
      const frame = ui.webview();
      await frame.locator('[data-testid=status]', { hasText: 'running' }).waitFor({ timeout: 30_000 });
      assert.equal(await frame.locator('[data-testid=load-error]').count(), 0);
      await shot('07-running-rollout');

      // Hidden behind another editor, the webview is unloaded; shown again it sends ready again. The ask
      // prompt covers the tab bar, so the tabs get their mouse-down directly (what opens an editor).
      await page.locator('.tab', { hasText: 'env.py' }).first().dispatchEvent('mousedown', { button: 0 });
      await page.locator('.tab.active', { hasText: 'env.py' }).first().waitFor({ timeout: 30_000 });
      await page.locator('iframe.webview.ready').first().waitFor({ state: 'hidden', timeout: 30_000 });
      await traceTab.dispatchEvent('mousedown', { button: 0 });
      await frame.locator('[data-testid=status]', { hasText: 'running' }).waitFor({ timeout: 30_000 });
      assert.equal(
        await frame.locator('[data-testid=load-error]').count(),
        0,
        'a hidden live panel shown again errored',
      );

      // The prompt is still waiting: answer it, and the open panel follows the rollout to its reward.
      await ui.answer('secret');
      await frame.locator('[data-testid=status]', { hasText: 'completed' }).waitFor({ timeout: 120_000 });
      assert.match(await frame.locator('[data-testid=reward]').innerText(), /^1(\.0+)?$/);
      assert.equal(await frame.locator('[data-testid=load-error]').count(), 0);
      await shot('07-running-rollout-ended');
    },
  );

  e2e.test(
    'Escape at the ask prompt cancels the rollout and leaves no container behind',
    async ({ ui, shot, processGroup }) => {
      await askRunUpToPrompt(ui);
      assert.ok(managedContainers(processGroup) > 0, 'the actor container should exist while the agent is asked');
      await ui.input.press('Escape');

      await ui
        .view('Runs')
        .locator('.monaco-list-row', { hasText: /task \(env\.py\).*cancelled/ })
        .first()
        .waitFor({ timeout: 60_000 });
      await shot('07-ask-cancelled');
      assert.equal(managedContainers(processGroup), 0, 'a cancelled rollout left containers behind');
    },
  );

  e2e.test(
    'a Harbor task.toml gets the Run task CodeLens and runs its trial with the oracle',
    async ({ page, ui, shot }) => {
      const envView = ui.view('Environments');
      await envView.locator('.monaco-list-row', { hasText: 'Harbor tasks' }).first().waitFor({ timeout: 30_000 });
      await envView.locator('.monaco-list-row', { hasText: 'shared-basic' }).first().waitFor({ timeout: 30_000 });

      await ui.quickOpen('harbor/shared-basic/task.toml');
      await page.locator('.monaco-editor .view-lines', { hasText: 'schema_version' }).waitFor({ timeout: 30_000 });
      const runLens = ui.lens('Run task');
      await runLens.first().waitFor({ timeout: 60_000 });
      await runLens.first().click();

      const toast = page.locator('.notification-toast', { hasText: /shared-basic: (reward \d\.\d\d|errored)/ });
      await toast.first().waitFor({ timeout: 300_000 });
      const text = (await toast.first().textContent()) ?? '';
      await shot('08-harbor-reward');
      assert.match(text, /shared-basic: reward 1\.00/, `notification: ${text}`);
      await ui
        .view('Runs')
        .locator('.monaco-list-row', { hasText: /Run hud-studio-fixtures\/shared-basic.*1 rollout · reward 1\.00/ })
        .first()
        .waitFor({ timeout: 10_000 });
    },
  );

  e2e.test(
    'Testing view: Run Tests runs every task with the batch agent and marks them passed',
    async ({ page, ui, shot, workspace }) => {
      await ui.showContainer('Testing');
      const rows = page.locator('.test-explorer .monaco-list-row');
      await rows.filter({ hasText: 'env.py' }).first().waitFor({ timeout: 30_000 });
      await ui.runAllTests();
      // "Run all" never asks: with hudStudio.agent = fixed the batch uses it; the Harbor trial uses the oracle.
      await ui.testRow('env.py', 'Passed').waitFor({ timeout: 180_000 });
      await ui.testRow('harbor/shared-basic/task.toml', 'Passed').waitFor({ timeout: 180_000 });
      await shot('09-testing-view');
      // The rows may already show Passed from the editor runs above: the Runs view proves this run happened.
      await ui.showContainer('HUD Studio');
      await ui
        .view('Runs')
        .locator('.monaco-list-row', { hasText: /Test 2 tasks.*2 rollouts · mean 1\.00$/ })
        .first()
        .waitFor({ timeout: 180_000 });
      await shot('10-testing-run-in-runs-view');
      // Editor batches go through the same pool as `hud-studio eval`: a job summary beside the traces.
      const traceDir = join(workspace, '.hud-studio', 'traces');
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
    },
  );

  e2e.test(
    'a *.hudtrace.json file opens in the trace explorer custom editor',
    async ({ page, ui, shot, workspace }) => {
      await ui.closeAllEditors();

      // From the Explorer, as a person opens any file: the custom editor claims *.hudtrace.json.
      const traceDir = join(workspace, '.hud-studio', 'traces');
      const file = readdirSync(traceDir)
        .filter((n) => n.includes('shared-basic') && n.endsWith('.hudtrace.json'))
        .sort()
        .at(-1);
      assert.ok(file, `no shared-basic trace in ${traceDir}`);
      await ui.showContainer('Explorer');
      const tree = page.locator('.explorer-folders-view');
      const fileRow = tree.locator('.monaco-list-row', { hasText: file });
      const folderRow = tree.locator('.monaco-list-row', { hasText: /^\s*\.hud-studio/ }).first();
      await folderRow.waitFor({ timeout: 60_000 });
      // Compact folders show ".hud-studio/traces" as one row; else "traces" is a row of its own under its parent.
      await ui.expand(folderRow);
      const tracesRow = tree.locator('.monaco-list-row', { hasText: /^\s*traces/ }).first();
      await fileRow.first().or(tracesRow).first().waitFor({ timeout: 30_000 });
      if (!(await fileRow.first().isVisible())) await ui.expand(tracesRow);
      await fileRow.first().click();
      await page.locator('.tab', { hasText: '.hudtrace.json' }).first().waitFor({ timeout: 60_000 });
      const body = await ui.webviewText({ text: 'reward' });
      await shot('11-trace-file-custom-editor');
      assert.match(body, /hud-studio-fixtures\/shared-basic/);
      assert.match(body, /completed/);
    },
  );

  e2e.test(
    'Restart Language Server brings a new server up; Show Server Log shows what happened',
    async ({ page, ui, shot, extHostLog, processGroup }) => {
      await ui.command('HUD Studio: Restart Language Server');
      await ui.command('HUD Studio: Show Server Log');
      const output = page.locator('.part.panel .view-lines');
      await output.filter({ hasText: 'restarting the language server' }).first().waitFor({ timeout: 60_000 });
      await shot('12-server-restarted');
      // The new server scans the workspace again and says so in the same log (its file, read as it grows).
      const restartedAndIndexed = () => /restarting the language server[\s\S]*indexed \d+ files/.test(extHostLog());
      await until('the restarted server indexing the workspace', restartedAndIndexed, 60_000);
      // It runs with the server's V8 flags, as the index benchmark measures it (server/src/v8Flags.ts).
      // (The old one may still be on its way out.)
      await until('one language server', () => serverCommandLines(processGroup).length === 1, 30_000);
      const servers = serverCommandLines(processGroup);
      for (const flag of SERVER_V8_FLAGS) assert.ok(servers[0]!.includes(flag), `${flag} in ${servers[0]!.join(' ')}`);

      await ui.quickOpen('env.py');
      await page
        .locator('.monaco-editor .view-lines', { hasText: 'Environment("workspace")' })
        .waitFor({ timeout: 30_000 });
      // CodeLens from the new server (the output panel leaves room for the top of the file only).
      await ui.lens('Run template').first().waitFor({ timeout: 60_000 });
      await shot('13-codelens-after-restart');
    },
  );

  e2e.test('the extension activated and its host logged no error from it', async ({ extHostLog }, t) => {
    const log = extHostLog();
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
async function askRunUpToPrompt(ui: Workbench): Promise<void> {
  await ui.command('HUD Studio: Run Task with Agent…');
  await ui.quickTitle('Run which task?');
  await ui.choose('env.py::task');
  await ui.quickTitle('Run with which agent?');
  await ui.input.fill('ask');
  await ui.choose('show the prompt, type the answer');
  await ui.quickMessage('Write the secret to the target system.', 120_000);
}
