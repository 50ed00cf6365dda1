/**
 * An environment author's daily loop in a real VS Code (code-server), from an
 * empty folder: create an environment with HUD Studio: New Environment, make
 * the common mistakes and apply their quick fixes, run the task twice with
 * different answers and compare the two runs, Run All from the Testing view
 * with a batch agent that cannot answer (HUD Studio asks how, instead of
 * scoring every task 0), then delete the folder on disk and see every view
 * forget it. The steps share one session and run in order.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ROOT, descendsFrom, listenersOf, until, useSession } from './codeServer';
import type { Workbench } from './workbench';

const EMPTY = join(ROOT, 'test', 'fixtures', 'workspaces', 'empty');

describe('the author loop in code-server', () => {
  const e2e = useSession({
    name: 'author',
    fixture: EMPTY,
    settings: {
      'hudStudio.runtime': 'local',
      'hudStudio.agent': 'ask',
      // Typed text stays exactly as typed.
      'editor.autoClosingBrackets': 'never',
      'editor.autoClosingQuotes': 'never',
      'editor.autoIndent': 'none',
      'editor.acceptSuggestionOnEnter': 'off',
      'editor.quickSuggestions': { other: false, comments: false, strings: false },
    },
  });

  /** What the Environments view shows when the workspace has no environment. */
  const newEnvironmentWelcome = (ui: Workbench): Locator =>
    ui.view('Environments').locator('.welcome-view-content', { hasText: 'New Environment' }).first();
  const editorText = async (page: Page) =>
    ((await page.locator('.monaco-editor .view-lines').first().innerText()) ?? '').replace(/\u00a0/g, ' ');

  e2e.test('New Environment creates a working environment in an empty folder', async ({ page, ui, shot }) => {
    await ui.showContainer('HUD Studio');
    await newEnvironmentWelcome(ui).waitFor({ timeout: 60_000 });
    await shot('author-01-empty-folder');
    await ui.command('HUD Studio: New Environment…');
    await ui.quickTitle('New HUD Environment');
    await ui.answer('capitals');
    await ui.quickTitle('New HUD Environment: capitals');
    await ui.quick.locator('.monaco-list-row', { hasText: 'Task file' }).first().waitFor();
    await ui.input.press('Enter'); // the HUD environment and the task file are picked by default
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Environment("capitals")' })
      .waitFor({ timeout: 60_000 });
    await ui.lens('Run task · verifier capitals_judge/verify').first().waitFor({ timeout: 60_000 });
    await ui
      .view('Environments')
      .locator('.monaco-list-row', { hasText: 'capitals' })
      .first()
      .waitFor({ timeout: 60_000 });
    await shot('author-02-new-environment');
  });

  e2e.test(
    'the common mistakes get diagnostics, and their quick fixes repair them',
    async ({ page, ui, shot, workspace }) => {
      await page.locator('.monaco-editor .view-lines').first().click();
      await page.locator('.part.editor .monaco-editor.focused').first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Control+End');
      await page.keyboard.type('\ntypo = ask(questoin="x")\nwrong = ask(question=3)\n');
      await page.keyboard.press('Control+S');
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
      await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 60_000 });
      await shot('author-03-mistakes');

      // The light bulb of the word under the cursor: the misspelt keyword, then the int literal.
      // The diagnostics come from the typed text; the save reaches the disk on its own time.
      const envPy = join(workspace, 'capitals', 'env.py');
      await until('the save of env.py with the two mistakes', () => {
        const saved = readFileSync(envPy, 'utf8');
        return saved.includes('questoin') && saved.includes('=3)');
      });
      const lines = readFileSync(envPy, 'utf8').split('\n');
      const at = (needle: string): [number, number] => {
        const line = lines.findIndex((l) => l.includes(needle));
        assert.ok(line >= 0, `${needle} is not in env.py on disk`);
        return [line + 1, lines[line]!.indexOf(needle) + 2];
      };
      for (const [where, fix, fixed] of [
        [at('questoin'), 'Rename the argument to "question"', 'typo = ask(question="x")'],
        [at('=3)'), 'Pass "3"', 'wrong = ask(question="3")'],
      ] as const) {
        await ui.goTo(...where);
        await ui.openQuickFix(fix);
        await shot(`author-04-quick-fix-${fix.startsWith('Rename') ? 'rename' : 'literal'}`);
        await ui.chooseCodeAction(fix);
        await page.locator('.monaco-editor .view-lines', { hasText: fixed }).waitFor({ timeout: 30_000 });
      }
      await page.keyboard.press('Control+S');
      await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'detached', timeout: 60_000 });
      await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ state: 'detached', timeout: 60_000 });
      const text = await editorText(page);
      assert.match(text, /typo = ask\(question="x"\)/);
      assert.match(text, /wrong = ask\(question="3"\)/);
      // Those two were only there to be fixed: delete them again. The save reaches the disk after the editor shows it.
      const savedLines = (): string[] => readFileSync(envPy, 'utf8').split('\n');
      await until('the save of env.py with the fixed lines', () => savedLines().includes('typo = ask(question="x")'));
      const typoLine = savedLines().findIndex((l) => l.startsWith('typo ='));
      await ui.goTo(typoLine + 1);
      await page.keyboard.press('Control+Shift+K');
      await page.keyboard.press('Control+Shift+K');
      await page.keyboard.press('Control+S');
      for (const gone of ['typo', 'wrong ='])
        await page
          .locator('.monaco-editor .view-lines', { hasText: gone })
          .waitFor({ state: 'detached', timeout: 30_000 });
      // The save reaches the disk after the editor shows the edit.
      await until(
        'the save of env.py without the two lines',
        () => !/^(typo|wrong) =/m.test(readFileSync(envPy, 'utf8')),
      );
    },
  );

  /**
   * The ports the workbench offers for forwarding, as its status bar item
   * names them ("Forwarded Ports: 3000, 8080"). It offers any new listening
   * port of the machine, other programs' too.
   */
  const forwardedPorts = async (page: Page): Promise<number[]> => {
    const item = page.locator('.statusbar-item', { has: page.locator('.codicon-radio-tower') }).first();
    if ((await item.count()) === 0) return [];
    const label = await item.evaluate(
      (e) => e.getAttribute('aria-label') ?? e.querySelector('[aria-label]')?.getAttribute('aria-label') ?? '',
    );
    const ports = label.includes(':') ? (label.split(':')[1]!.match(/\d+/g) ?? []).map(Number) : [];
    const count = Number(/\d+/.exec(await item.innerText())?.[0] ?? 0);
    assert.equal(ports.length, count, `the label names the ${count} ports the item counts: ${label}`);
    return ports;
  };

  e2e.test(
    'two runs with different answers, labelled and compared side by side; no ports offered',
    async ({ page, ui, shot, processGroup }) => {
      // No editor: the command asks which task (with env.py open it would take the task under the cursor).
      await ui.closeAllEditors();
      await ui.showContainer('HUD Studio');
      const portsBefore = await forwardedPorts(page);
      for (const [answer, reward] of [
        ['Paris', '1.00'],
        ['Lyon', '0.00'],
      ] as const) {
        await ui.command('HUD Studio: Run Task with Agent…');
        await ui.quickTitle('Run which task?');
        await ui.input.fill('task');
        await ui.choose('capitals/env.py::task');
        await ui.quickTitle('Run with which agent?');
        await ui.input.fill('ask');
        await ui.choose('show the prompt, type the answer');
        await ui.quickMessage('What is the capital of France?', 120_000);
        await ui.answer(answer);
        // The rollout says its reward, who answered and with what.
        const row = ui
          .view('Runs')
          .locator('.monaco-list-row', { hasText: `reward ${reward}` })
          .filter({ hasText: `ask "${answer}"` });
        await row.first().waitFor({ timeout: 180_000 });
      }
      await shot('author-05-two-runs');
      // Rollout servers must never be offered. A port offered meanwhile is the rollouts' when a process of this
      // code-server listens on it, or when nothing does any more; other programs on the machine may add theirs.
      const offered = (await forwardedPorts(page)).filter((port) => !portsBefore.includes(port));
      const ours = offered.filter((port) => {
        const owners = listenersOf(port);
        return owners.length === 0 || owners.some((pid) => descendsFrom(pid, processGroup));
      });
      assert.deepEqual(
        ours,
        [],
        `a rollout server was offered for port forwarding (offered since: ${offered.join(', ')})`,
      );

      const latest = ui.view('Runs').locator('.monaco-list-row', { hasText: 'ask "Lyon"' }).first();
      await ui.chooseFromContextMenu(latest, 'Compare with Previous Run');
      // The command says why in a notification when it has nothing to compare: the error shows the notifications.
      await page.locator('.tab', { hasText: 'Compare' }).first().waitFor({ timeout: 30_000 });
      const body = await ui.webviewText({ text: 'Compare' });
      assert.match(body, /Paris/, body.slice(0, 2000));
      assert.match(body, /Lyon/, body.slice(0, 2000));
      await shot('author-06-compare');
      await ui.closeAllEditors();
      // From the palette there is no row: the command asks which run.
      await ui.command('HUD Studio: Compare with Previous Run');
      await ui.quickTitle('Compare which run with the one before it?');
      await ui.input.fill('Lyon');
      await ui.choose('ask "Lyon"');
      await page.locator('.tab', { hasText: 'Compare' }).first().waitFor({ timeout: 30_000 });
      assert.match(await ui.webviewText({ text: 'Paris' }), /Lyon/);
      await ui.closeAllEditors();
    },
  );

  e2e.test(
    'Run All with a batch agent that cannot answer asks how, instead of scoring every task 0',
    async ({ page, ui, shot }) => {
      await ui.showContainer('Testing');
      await page.locator('.test-explorer .monaco-list-row', { hasText: 'env.py' }).first().waitFor({ timeout: 60_000 });
      await ui.runAllTests();
      // hudStudio.agentAnswer is empty, so the batch's fixed agent has nothing to send.
      await ui.quickTitle(/how should these \d+ tasks be answered/);
      await shot('author-07-asked-how-to-answer');
      await ui.choose('Type one answer for every task');
      await ui.quickTitle('the answer for every task');
      await ui.answer('Paris');
      await ui.testRow('capitals/env.py', 'Passed').first().waitFor({ timeout: 180_000 });
      // The task file's row asks for the capital of Italy: Paris fails it, with a reward, not silently.
      await ui.testRow('capitals/tasks.jsonl', 'Failed').first().waitFor({ timeout: 180_000 });
      await shot('author-08-run-all-answered');
    },
  );

  e2e.test(
    'deleting the folder on disk clears the Environments view, the Testing view and the Problems',
    async ({ page, ui, shot, workspace }) => {
      rmSync(join(workspace, 'capitals'), { recursive: true, force: true });
      await page
        .locator('.test-explorer .monaco-list-row', { hasText: 'env.py' })
        .first()
        .waitFor({ state: 'detached', timeout: 60_000 });
      await ui.showContainer('HUD Studio');
      await newEnvironmentWelcome(ui).waitFor({ timeout: 60_000 });
      assert.equal(await ui.view('Environments').locator('.monaco-list-row', { hasText: 'capitals' }).count(), 0);
      await ui.command('View: Focus Problems (Errors, Warnings, Infos)');
      await page.locator('.markers-panel .monaco-list-row').first().waitFor({ state: 'detached', timeout: 30_000 });
      await shot('author-09-deleted');
    },
  );
});
