/**
 * An environment author's daily loop in a real VS Code (code-server), from an
 * empty folder: create an environment with HUD Studio: New Environment, make
 * the common mistakes and apply their quick fixes, run the task twice with
 * different answers and compare the two runs, Run All from the Testing view
 * with a batch agent that cannot answer (HUD Studio asks how, instead of
 * scoring every task 0), then delete the folder on disk and see every view
 * forget it. The steps share one session and run in order.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { ROOT, type Session, chooseFromContextMenu, openSession, packageVsix, tempDir } from './codeServer';

const EMPTY = join(ROOT, 'test', 'fixtures', 'workspaces', 'empty');

describe('the author loop in code-server', () => {
  let dir: string;
  let s: Session | undefined;

  before(async () => {
    dir = tempDir('hud-studio-vsix-');
    s = await openSession({
      name: 'author-loop',
      vsix: packageVsix(dir),
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
  });

  after(async () => {
    await s?.shot('author-last').catch(() => undefined);
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const quick = () => s!.page.locator('.quick-input-widget');
  const input = () => quick().locator('input').first();
  /** Enter only once the row is rendered and focused: an Enter sent while the widget fades in is lost. */
  const choose = async (label: string | RegExp) => {
    await quick().locator('.monaco-list-row.focused', { hasText: label }).first().waitFor({ timeout: 60_000 });
    await input().press('Enter');
  };
  const command = async (title: string) => {
    await s!.page.keyboard.press('F1');
    await input().fill(`>${title}`);
    await choose(title.replace(/^HUD Studio: /, ''));
  };
  const view = (name: string): Locator =>
    s!.page.locator('.pane', { has: s!.page.locator('.pane-header', { hasText: name }) });
  const showHudStudio = async (page: Page) => {
    if (!(await view('Runs').first().isVisible()))
      await page.locator('.activitybar [aria-label^="HUD Studio"]').first().click();
  };
  /**
   * Puts the cursor at line:column (1-based) and waits until the status bar says it is there: an Enter that
   * reaches Go to Line before it has read the number leaves the cursor where it was.
   */
  const goTo = async (line: number, column = 1) => {
    const page = s!.page;
    await page.keyboard.press('Control+G');
    await input().waitFor();
    await input().fill(`:${line}:${column}`);
    await quick()
      .getByText(new RegExp(`line ${line}\\b.*(character|column) ${column}\\b`, 'i'))
      .first()
      .waitFor();
    await input().press('Enter');
    await page
      .locator('[id="status.editor.selection"]')
      .filter({ hasText: new RegExp(`^\\s*Ln ${line}, Col ${column}\\b`) })
      .waitFor({ timeout: 30_000 });
  };
  const editorText = async (page: Page) =>
    ((await page.locator('.monaco-editor .view-lines').first().innerText()) ?? '').replace(/\u00a0/g, ' ');

  test('New Environment creates a working environment in an empty folder', async () => {
    const page = s!.page;
    await page.locator('.activitybar [aria-label^="HUD Studio"]').first().click();
    await view('Environments')
      .locator('.welcome-view-content', { hasText: 'New Environment' })
      .first()
      .waitFor({ timeout: 60_000 });
    await s!.shot('author-01-empty-folder');
    await command('HUD Studio: New Environment…');
    await quick().locator('.quick-input-title', { hasText: 'New HUD Environment' }).waitFor({ timeout: 60_000 });
    await input().fill('capitals');
    await input().press('Enter');
    await quick()
      .locator('.quick-input-title', { hasText: 'New HUD Environment: capitals' })
      .waitFor({ timeout: 60_000 });
    await quick().locator('.monaco-list-row', { hasText: 'Task file' }).first().waitFor();
    await input().press('Enter'); // the HUD environment and the task file are picked by default
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Environment("capitals")' })
      .waitFor({ timeout: 60_000 });
    await page
      .locator('.codelens-decoration a', { hasText: 'Run task · verifier capitals_judge/verify' })
      .first()
      .waitFor({ timeout: 60_000 });
    await view('Environments')
      .locator('.monaco-list-row', { hasText: 'capitals' })
      .first()
      .waitFor({ timeout: 60_000 });
    await s!.shot('author-02-new-environment');
  });

  test('the common mistakes get diagnostics, and their quick fixes repair them', async () => {
    const page = s!.page;
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\ntypo = ask(questoin="x")\nwrong = ask(question=3)\n');
    await page.keyboard.press('Control+S');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ timeout: 60_000 });
    await s!.shot('author-03-mistakes');

    // The light bulb of the word under the cursor: the misspelt keyword, then the int literal.
    const lines = readFileSync(join(s!.workspace, 'capitals', 'env.py'), 'utf8').split('\n');
    const at = (needle: string): [number, number] => {
      const line = lines.findIndex((l) => l.includes(needle));
      assert.ok(line >= 0, `${needle} is not in env.py on disk`);
      return [line + 1, lines[line]!.indexOf(needle) + 2];
    };
    for (const [where, fix] of [
      [at('questoin'), 'Rename the argument to "question"'],
      [at('=3)'), 'Pass "3"'],
    ] as const) {
      await goTo(...where);
      await command('Quick Fix...');
      const item = page.locator('.action-widget .monaco-list-row', { hasText: fix });
      await item.first().waitFor({ timeout: 60_000 });
      await s!.shot(`author-04-quick-fix-${fix.startsWith('Rename') ? 'rename' : 'literal'}`);
      await item.first().click();
      await page.keyboard.press('Escape');
    }
    await page.keyboard.press('Control+S');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('.monaco-editor .squiggly-warning').first().waitFor({ state: 'detached', timeout: 60_000 });
    const text = await editorText(page);
    assert.match(text, /typo = ask\(question="x"\)/);
    assert.match(text, /wrong = ask\(question="3"\)/);
    // Those two were only there to be fixed: delete them again.
    const typoLine = readFileSync(join(s!.workspace, 'capitals', 'env.py'), 'utf8')
      .split('\n')
      .findIndex((l) => l.startsWith('typo ='));
    assert.ok(typoLine >= 0, 'the fixed lines were saved');
    await goTo(typoLine + 1);
    await page.keyboard.press('Control+Shift+K');
    await page.keyboard.press('Control+Shift+K');
    await page.keyboard.press('Control+S');
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'typo' })
      .waitFor({ state: 'detached', timeout: 30_000 });
  });

  /** The status bar's count of forwarded ports: rollout servers must never add to it. */
  const forwardedPorts = async (page: Page): Promise<number> => {
    const item = page.locator('.statusbar-item', { has: page.locator('.codicon-radio-tower') }).first();
    if ((await item.count()) === 0) return 0;
    return Number(/\d+/.exec((await item.innerText()) ?? '')?.[0] ?? 0);
  };

  test('two runs with different answers, labelled and compared side by side; no ports offered', async () => {
    const page = s!.page;
    // No editor: the command asks which task (with env.py open it would take the task under the cursor).
    await command('View: Close All Editors');
    await showHudStudio(page);
    const portsBefore = await forwardedPorts(page);
    for (const [answer, reward] of [
      ['Paris', '1.00'],
      ['Lyon', '0.00'],
    ] as const) {
      await command('HUD Studio: Run Task with Agent…');
      await quick().locator('.quick-input-title', { hasText: 'Run which task?' }).waitFor({ timeout: 60_000 });
      await input().fill('task');
      await choose('capitals/env.py::task');
      await quick().locator('.quick-input-title', { hasText: 'Run with which agent?' }).waitFor({ timeout: 60_000 });
      await input().fill('ask');
      await choose('show the prompt, type the answer');
      await quick()
        .locator('.quick-input-message', { hasText: 'What is the capital of France?' })
        .waitFor({ timeout: 120_000 });
      await input().fill(answer);
      await input().press('Enter');
      // The rollout says its reward, who answered and with what.
      const row = view('Runs')
        .locator('.monaco-list-row', { hasText: `reward ${reward}` })
        .filter({ hasText: `ask "${answer}"` });
      await row.first().waitFor({ timeout: 180_000 });
    }
    await s!.shot('author-05-two-runs');
    assert.equal(await forwardedPorts(page), portsBefore, 'a rollout server was offered for port forwarding');

    const latest = view('Runs').locator('.monaco-list-row', { hasText: 'ask "Lyon"' }).first();
    await chooseFromContextMenu(page, latest, 'Compare with Previous Run');
    await page
      .locator('.tab', { hasText: 'Compare' })
      .first()
      .waitFor({ timeout: 30_000 })
      .catch(async (err: Error) => {
        // The command says why in a notification when it has nothing to compare: fail with that text.
        const toasts = await page.locator('.notification-list-item-message').allInnerTexts();
        throw new Error(`${err.message}\nnotifications: ${JSON.stringify(toasts)}`);
      });
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    await frame.locator('body', { hasText: 'Compare' }).waitFor({ timeout: 30_000 });
    const body = (await frame.locator('body').innerText()).replace(/\s+/g, ' ');
    assert.match(body, /Paris/, body.slice(0, 2000));
    assert.match(body, /Lyon/, body.slice(0, 2000));
    await s!.shot('author-06-compare');
    await command('View: Close All Editors');
  });

  test('Run All with a batch agent that cannot answer asks how, instead of scoring every task 0', async () => {
    const page = s!.page;
    await page.locator('.activitybar [aria-label^="Testing"]').first().click();
    await page.locator('.test-explorer .monaco-list-row', { hasText: 'env.py' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.action-label[aria-label^="Run Tests"]').first().click();
    // hudStudio.agentAnswer is empty, so the batch's fixed agent has nothing to send.
    await quick()
      .locator('.quick-input-title', { hasText: /how should these \d+ tasks be answered/ })
      .waitFor({ timeout: 60_000 });
    await s!.shot('author-07-asked-how-to-answer');
    await choose('Type one answer for every task');
    await quick().locator('.quick-input-title', { hasText: 'the answer for every task' }).waitFor({ timeout: 60_000 });
    await input().fill('Paris');
    await input().press('Enter');
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^="capitals/env.py (Passed)"]')
      .first()
      .waitFor({ timeout: 180_000 });
    // The task file's row asks for the capital of Italy: Paris fails it, with a reward, not silently.
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^="capitals/tasks.jsonl (Failed)"]')
      .first()
      .waitFor({ timeout: 180_000 });
    await s!.shot('author-08-run-all-answered');
  });

  test('deleting the folder on disk clears the Environments view, the Testing view and the Problems', async () => {
    const page = s!.page;
    rmSync(join(s!.workspace, 'capitals'), { recursive: true, force: true });
    await page
      .locator('.test-explorer .monaco-list-row', { hasText: 'env.py' })
      .first()
      .waitFor({ state: 'detached', timeout: 60_000 });
    await page.locator('.activitybar [aria-label^="HUD Studio"]').first().click();
    await view('Environments')
      .locator('.welcome-view-content', { hasText: 'New Environment' })
      .first()
      .waitFor({ timeout: 60_000 });
    assert.equal(await view('Environments').locator('.monaco-list-row', { hasText: 'capitals' }).count(), 0);
    await command('View: Focus Problems (Errors, Warnings, Infos)');
    await page.locator('.markers-panel .monaco-list-row').first().waitFor({ state: 'detached', timeout: 30_000 });
    await s!.shot('author-09-deleted');
  });
});
