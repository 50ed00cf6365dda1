/**
 * Golden answers in a real VS Code (docs/grader-workbench.md): the rows of
 * env.golden.jsonl appear in the Testing view as their own group, pass,
 * and fail once the grader changes on disk. The task itself runs in the same
 * Testing run, so its line shows exactly one inline result whether it passed
 * (HUD Studio's reward text) or failed (VS Code's Testing message, which HUD
 * Studio's text yields to; docs/grader-workbench.md).
 */
import { describe } from 'node:test';
import { readFileSync, writeFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ROOT, useSession } from './codeServer';

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

describe('golden answers in the Testing view', () => {
  const e2e = useSession({
    name: 'golden',
    fixture: FIXTURE,
    settings: {
      'hudStudio.agent': 'fixed',
      'hudStudio.agentAnswer': 'apple apple apple',
      'hudStudio.runtime': 'docker',
    },
  });

  e2e.test('the golden group passes, then fails after a grader change', async ({ page, ui, shot, workspace }) => {
    // A workspace holding an env.py activates the extension: the Testing view fills before any file is open.
    await ui.showContainer('Testing');
    const rows = page.locator('.test-explorer .monaco-list-row');
    await rows.filter({ hasText: 'env.golden.jsonl' }).first().waitFor({ timeout: 60_000 });
    await rows.filter({ hasText: 'env.py' }).first().waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.editor-group-container .tab').count(), 0, 'no editor was opened');
    await ui.quickOpen('env.py');
    await ui.lens('Run task').first().waitFor({ timeout: 60_000 });
    await ui.runAllTests();
    await shot('golden-00-running');
    // On a timeout the error lists the Testing rows it saw.
    await ui.testRow('golden answers', 'Passed').waitFor({ timeout: 180_000 });
    await shot('golden-01-passed');
    // Passed: no Testing message on the task's line, HUD Studio's reward text alone. The trace CodeLens gets the
    // run's result after HUD Studio painted its inline text.
    await ui.lens('reward 1.00 · enough 1.00').first().waitFor({ timeout: 60_000 });
    let shown = await inlineResultsOnTaskLine(page, 'reward 1.00');
    assert.equal(shown.results.length, 1, `one inline result on a passed task's line: ${shown.html}`);
    assert.match(shown.results[0]!, /reward 1\.00 · enough 1\.00 · tidy 1\.00/);

    const env = join(workspace, 'env.py');
    writeFileSync(env, readFileSync(env, 'utf8').replace('hits >= 3', 'hits >= 4'));
    await ui.runAllTests();
    await ui.testRow('golden answers', 'Failed').waitFor({ timeout: 180_000 });
    // The row that broke (three apples no longer reach four) failed; the other two still pass.
    // Testing rows are labelled by their description when they have one (the group's, each row's expectation).
    await ui.expand(rows.filter({ hasText: 'env.golden.jsonl' }).first());
    await ui.testRow('expects == 1', 'Failed').waitFor({ timeout: 30_000 });
    await shot('golden-02-failed-after-grader-change');
    // Failed: VS Code's Testing message on the task's line, carrying the same facts; HUD Studio's text yields.
    await ui.lens('reward 0.40 · enough 0.00').first().waitFor({ timeout: 60_000 });
    shown = await inlineResultsOnTaskLine(page, 'reward 0.40 < threshold 1.00');
    assert.equal(shown.results.length, 1, `one inline result on a failed task's line: ${shown.html}`);
    assert.match(shown.results[0]!, /reward 0\.40 < threshold 1\.00 · enough 0\.00 · tidy 1\.00/);
  });
});
