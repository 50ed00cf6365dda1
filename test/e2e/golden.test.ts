/**
 * Golden answers in a real VS Code (docs/grader-workbench.md): the rows of
 * env.golden.jsonl appear in the Testing view as their own group, pass,
 * and fail once the grader changes on disk. The task itself runs in the same
 * Testing run, so its line shows exactly one inline result whether it passed
 * (HUD Studio's reward text) or failed (VS Code's Testing message, which HUD
 * Studio's text yields to; docs/grader-workbench.md).
 */
import { after, before, describe, test } from 'node:test';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT, type Session, openSession, packageVsix, tempDir } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'integration', 'regrade', 'fixtures', 'graded');

/**
 * The results drawn at the end of the task's line (`task = count()`), once
 * one of them contains `want`: HUD Studio's decoration (a CSS ::after of a
 * span in the line) and VS Code's Testing message (a content widget laid
 * over the line).
 */
async function inlineResultsOnTaskLine(page: Page, want: string): Promise<{ results: string[]; html: string }> {
  const found = await page
    .waitForFunction(
      (want) => {
        // Monaco draws spaces as no-break spaces. (No named functions in here: tsx would wrap them in a helper
        // the page does not have.)
        const SPACES = /\s+/g;
        const line = [...document.querySelectorAll('.view-line')].find((l) =>
          (l.textContent ?? '').replace(SPACES, ' ').includes('task = count()'),
        );
        if (!line) return null;
        const results: string[] = [];
        const RESULT = /reward \d|errored/;
        for (const el of [line, ...line.querySelectorAll('*')]) {
          for (const pseudo of ['::before', '::after']) {
            const content = getComputedStyle(el, pseudo).content;
            if (content && content !== 'none' && content !== 'normal' && RESULT.test(content))
              results.push(content.replace(SPACES, ' '));
          }
          // An element's own text (not its children's): injected text.
          const own = [...el.childNodes]
            .filter((n) => n.nodeType === Node.TEXT_NODE)
            .map((n) => n.textContent ?? '')
            .join('');
          if (RESULT.test(own)) results.push(own.replace(SPACES, ' '));
        }
        // VS Code draws a failed test's message as a content widget placed over the line: count those at its height.
        const box = line.getBoundingClientRect();
        for (const w of line.closest('.monaco-editor')?.querySelectorAll('.test-error-content-widget') ?? []) {
          const r = w.getBoundingClientRect();
          if (r.height > 0 && r.top < box.bottom && r.bottom > box.top)
            results.push((w.textContent ?? '').replace(SPACES, ' '));
        }
        return results.some((r) => r.includes(want)) ? { results, html: line.outerHTML } : null;
      },
      want,
      { timeout: 30_000 },
    )
    .catch(async (err: unknown) => {
      // Where the wanted text is drawn, if anywhere: the element's classes and its parents'.
      const where = await page.evaluate((want) => {
        const out: string[] = [];
        for (const el of document.querySelectorAll('.monaco-editor *')) {
          const texts = [
            el.textContent ?? '',
            getComputedStyle(el, '::after').content,
            getComputedStyle(el, '::before').content,
          ];
          if (el.children.length === 0 && texts.some((t) => t.replace(/\s+/g, ' ').includes(want)))
            out.push(
              `${el.className} < ${el.parentElement?.className ?? ''} < ${el.parentElement?.parentElement?.className ?? ''}: ${el.outerHTML.slice(0, 300)}`,
            );
        }
        return out;
      }, want);
      throw new Error(`${String(err)}; "${want}" drawn at: ${JSON.stringify(where)}`);
    });
  return (await found.jsonValue())!;
}

/** Waits until the run's result reached the trace CodeLens, which HUD Studio records after painting its inline text. */
async function waitForLens(page: Page, text: string): Promise<void> {
  await page.locator('.codelens-decoration a', { hasText: text }).first().waitFor({ timeout: 60_000 });
}

describe('golden answers in the Testing view', () => {
  let dir: string;
  let s: Session | undefined;

  before(async () => {
    dir = tempDir('hud-studio-vsix-');
    s = await openSession({
      name: 'golden',
      vsix: packageVsix(dir),
      fixture: FIXTURE,
      settings: {
        'hudStudio.agent': 'fixed',
        'hudStudio.agentAnswer': 'apple apple apple',
        'hudStudio.runtime': 'docker',
      },
    });
  });

  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the golden group passes, then fails after a grader change', async () => {
    const page = s!.page;
    // The extension activates with a Python file and indexes: the task's CodeLens says it did.
    await page.keyboard.press('Control+P');
    const quickOpen = page.locator('.quick-input-widget input');
    await quickOpen.fill('env.py');
    await page
      .locator('.quick-input-list .monaco-list-row.focused', { hasText: 'env.py' })
      .first()
      .waitFor({ timeout: 60_000 });
    await quickOpen.press('Enter');
    await page.locator('.codelens-decoration a', { hasText: 'Run task' }).first().waitFor({ timeout: 60_000 });
    await page.locator('.activitybar [aria-label^="Testing"]').first().click();
    const rows = page.locator('.test-explorer .monaco-list-row');
    await rows.filter({ hasText: 'env.golden.jsonl' }).first().waitFor({ timeout: 60_000 });
    const runAll = page.locator('.action-label[aria-label^="Run Tests"]').first();
    await runAll.click();
    await s!.shot('golden-00-running');
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^="golden answers (Passed)"]')
      .waitFor({ timeout: 180_000 })
      .catch(async (err: unknown) => {
        const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
        await s!.shot('golden-00-timeout');
        throw new Error(`${String(err)}; rows: ${JSON.stringify(labels)}`);
      });
    await s!.shot('golden-01-passed');
    // Passed: no Testing message on the task's line, HUD Studio's reward text alone.
    await waitForLens(page, 'reward 1.00 · enough 1.00');
    let shown = await inlineResultsOnTaskLine(page, 'reward 1.00');
    assert.equal(shown.results.length, 1, `one inline result on a passed task's line: ${shown.html}`);
    assert.match(shown.results[0]!, /reward 1\.00 · enough 1\.00 · tidy 1\.00/);

    const env = join(s!.workspace, 'env.py');
    writeFileSync(env, readFileSync(env, 'utf8').replace('hits >= 3', 'hits >= 4'));
    await runAll.click();
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^="golden answers (Failed)"]')
      .waitFor({ timeout: 180_000 });
    // The row that broke (three apples no longer reach four) failed; the other two still pass.
    // Testing rows are labelled by their description when they have one (the group's, each row's expectation).
    const group = rows.filter({ hasText: 'env.golden.jsonl' }).first();
    if ((await group.getAttribute('aria-expanded')) !== 'true') await group.locator('.monaco-tl-twistie').click();
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^="expects == 1 (Failed)"]')
      .waitFor({ timeout: 30_000 });
    await s!.shot('golden-02-failed-after-grader-change');
    // Failed: VS Code's Testing message on the task's line, carrying the same facts; HUD Studio's text yields.
    await waitForLens(page, 'reward 0.40 · enough 0.00');
    shown = await inlineResultsOnTaskLine(page, 'reward 0.40 < threshold 1.00');
    assert.equal(shown.results.length, 1, `one inline result on a failed task's line: ${shown.html}`);
    assert.match(shown.results[0]!, /reward 0\.40 < threshold 1\.00 · enough 0\.00 · tidy 1\.00/);
  });
});
