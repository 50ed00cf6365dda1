/**
 * Regrade in a real VS Code (code-server): run a task whose grader is too
 * strict (a right lower-case answer scores 0), fix the grader on disk, see
 * the stored run marked stale (CodeLens, Runs view, template diff), click the
 * "Regrade 1 stored run" CodeLens and see `0.00 -> 1.00` in the notification
 * and the Runs view, then compare the regrade with its original. Real
 * rollouts on the local runtime (the same engine path as Docker's, without a
 * container build). The steps share one session and run in order.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT, useSession } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'workspaces', 'regrade');
const STRICT = 'right = str(answer).strip() == "Paris"';
const LENIENT = 'right = str(answer).strip().lower() == "paris"';

/**
 * What is drawn on the editor line holding `code`, once some of it contains
 * `want`: HUD Studio's decorations (CSS ::before/::after) and VS Code's
 * Testing messages over the line (content widgets, prefixed `testing:`).
 */
async function lineTexts(page: Page, code: string, want: string): Promise<string[]> {
  const found = await page.waitForFunction(
    ([code, want]) => {
      // Monaco draws spaces as no-break spaces. (No named functions in here: tsx would wrap them in a helper.)
      const SPACES = /\s+/g;
      const line = [...document.querySelectorAll('.view-line')].find((l) =>
        (l.textContent ?? '').replace(SPACES, ' ').includes(code),
      );
      if (!line) return null;
      const out: string[] = [];
      for (const el of [line, ...line.querySelectorAll('*')])
        for (const pseudo of ['::before', '::after']) {
          const content = getComputedStyle(el, pseudo).content;
          if (content && content !== 'none' && content !== 'normal') out.push(content.replace(SPACES, ' '));
        }
      const box = line.getBoundingClientRect();
      for (const w of line.closest('.monaco-editor')?.querySelectorAll('.test-error-content-widget') ?? []) {
        const r = w.getBoundingClientRect();
        if (r.height > 0 && r.top < box.bottom && r.bottom > box.top)
          out.push(`testing: ${(w.textContent ?? '').replace(SPACES, ' ')}`);
      }
      return out.some((t) => t.includes(want)) ? out : null;
    },
    [code, want] as const,
    { timeout: 30_000 },
  );
  return (await found.jsonValue()) as string[];
}

describe('regrade in code-server', () => {
  const e2e = useSession({
    name: 'regrade',
    fixture: FIXTURE,
    settings: {
      'hudStudio.runtime': 'local',
      'hudStudio.agent': 'fixed',
      'hudStudio.agentAnswer': 'paris',
    },
  });

  e2e.test('run the task: the strict grader scores the right lower-case answer 0', async ({ ui, shot }) => {
    await ui.quickOpen('env.py');
    await ui.lens('Run task').first().waitFor({ timeout: 60_000 });
    await ui.lens('Run task').first().click();
    await ui.showContainer('HUD Studio');
    await ui.view('Runs').locator('.monaco-list-row', { hasText: 'reward 0.00' }).first().waitFor({ timeout: 180_000 });
    // Once the run is stored, its template offers to grade it again.
    await ui.lens('Regrade 1 stored run').first().waitFor({ timeout: 60_000 });
    await ui.dismissToasts();
    await shot('regrade-01-strict-run');
  });

  e2e.test(
    'fix the grader: the stored run is stale in the editor and the Runs view, with a template diff',
    async ({ page, ui, shot, workspace }) => {
      const file = join(workspace, 'env.py');
      const before = readFileSync(file, 'utf8');
      assert.ok(before.includes(STRICT));
      writeFileSync(file, before.replace(STRICT, LENIENT));
      await page.locator('.monaco-editor .view-lines', { hasText: '.lower() == "paris"' }).waitFor({ timeout: 60_000 });
      const staleLens = ui.lens('1 of 1 stale · Show Template Diff');
      await staleLens.first().waitFor({ timeout: 60_000 });
      await ui
        .view('Runs')
        .locator('.monaco-list-row', { hasText: /reward 0\.00.*stale/ })
        .first()
        .waitFor({ timeout: 60_000 });
      await shot('regrade-02-stale');

      await staleLens.first().click();
      await page.locator('.tab', { hasText: 'as run' }).first().waitFor({ timeout: 30_000 });
      const diff = page.locator('.monaco-diff-editor').first();
      await diff.waitFor({ timeout: 30_000 });
      // Left: the template as the rollout ran it; right: the file now.
      await diff.locator('.editor.original .view-lines', { hasText: '== "Paris"' }).waitFor({ timeout: 30_000 });
      await diff.locator('.editor.modified .view-lines', { hasText: '== "paris"' }).waitFor({ timeout: 30_000 });
      await shot('regrade-03-template-diff');
      // Control+W closes the active editor: the diff, once it is the active one.
      await page.locator('.tab.active', { hasText: 'as run' }).first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Control+W');
      await page.locator('.tab', { hasText: 'as run' }).first().waitFor({ state: 'detached', timeout: 30_000 });
      // From the palette no run comes with the command: it asks which, and shows the same diff.
      await ui.command('HUD Studio: Show Template Diff');
      await ui.quickTitle('Show what changed in the template since which run?');
      await ui.choose(/reward 0\.00.*stale/);
      await page.locator('.tab.active', { hasText: 'as run' }).first().waitFor({ timeout: 30_000 });
      await page.keyboard.press('Control+W');
      await page.locator('.tab', { hasText: 'as run' }).first().waitFor({ state: 'detached', timeout: 30_000 });
    },
  );

  e2e.test(
    'click the Regrade CodeLens: the change shows in the notification and the Runs view',
    async ({ page, ui, shot }) => {
      await ui.lens('Regrade 1 stored run').first().click();
      // The progress notification has the same title: wait for the result's.
      const toast = page.locator('.notification-toast', { hasText: /Regrade capitals\/capital: \d\.\d\d -> / });
      await toast.first().waitFor({ timeout: 180_000 });
      const text = (await toast.first().locator('.notification-list-item-message').innerText()).replace(/\s+/g, ' ');
      assert.match(text, /capitals\/capital: 0\.00 -> 1\.00 up \(exact 0\.00 -> 1\.00\)/, text);
      const row = ui.view('Runs').locator('.monaco-list-row', { hasText: 'regrade · 0.00 -> 1.00 up' });
      await row.first().waitFor({ timeout: 30_000 });
      // The template's grading yield carries the delta; the task's line is VS Code's failure message's, not ours too.
      const yieldLine = await lineTexts(page, 'yield await combine', 'regrade: 0.00 -> 1.00 up');
      assert.ok(
        yieldLine.some((t) => t.includes('regrade: 0.00 -> 1.00 up')),
        JSON.stringify(yieldLine),
      );
      const taskLine = await lineTexts(page, 'task = capital(', 'reward 0.00');
      assert.ok(
        taskLine.some((t) => t.startsWith('testing:')),
        `the Testing message is there: ${JSON.stringify(taskLine)}`,
      );
      assert.ok(
        !taskLine.some((t) => t.includes('regrade:')),
        `no regrade text on the task line: ${JSON.stringify(taskLine)}`,
      );
      await shot('regrade-04-deltas');
      await ui.dismissToasts();
    },
  );

  e2e.test('Compare with Previous Run on the regrade opens it beside its original', async ({ page, ui, shot }) => {
    const row = ui.view('Runs').locator('.monaco-list-row', { hasText: 'regrade · 0.00 -> 1.00 up' }).first();
    await ui.chooseFromContextMenu(row, 'Compare with Previous Run');
    await page.locator('.tab', { hasText: 'Compare' }).first().waitFor({ timeout: 30_000 });
    const body = await ui.webviewText({ selector: '[data-testid="regrade-of"]' });
    assert.match(body, /B graded A's recorded answer again/, body.slice(0, 2000));
    assert.match(body, /reward 0(\.0+)? -> 1(\.0+)?/, body.slice(0, 2000));
    // The original ran the old template: its stale banner says so.
    assert.match(body, /stale .* ran an older version: template changed/, body.slice(0, 2000));
    await shot('regrade-05-compare');
  });
});
