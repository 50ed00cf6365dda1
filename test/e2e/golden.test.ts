/**
 * Golden answers in a real VS Code (docs/grader-workbench.md): the rows of
 * env.golden.jsonl appear in the Testing view as their own group, pass,
 * and fail once the grader changes on disk.
 */
import { after, before, describe, test } from 'node:test';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Session, openSession, packageVsix, tempDir } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'integration', 'regrade', 'fixtures', 'graded');

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
      .locator('.test-explorer .monaco-list-row[aria-label^="env.golden.jsonl"][aria-label*="(Passed)"]')
      .waitFor({ timeout: 180_000 });
    await s!.shot('golden-01-passed');

    const env = join(s!.workspace, 'env.py');
    writeFileSync(env, readFileSync(env, 'utf8').replace('hits >= 3', 'hits >= 4'));
    await runAll.click();
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^="env.golden.jsonl"][aria-label*="(Failed)"]')
      .waitFor({ timeout: 180_000 });
    // The row that broke (the answer with three apples no longer reaches four): its own item failed.
    const group = rows.filter({ hasText: 'env.golden.jsonl' }).first();
    if ((await group.getAttribute('aria-expanded')) !== 'true') await group.locator('.monaco-tl-twistie').click();
    await page
      .locator('.test-explorer .monaco-list-row[aria-label^=\'task ← "apple apple apple"\'][aria-label*="(Failed)"]')
      .waitFor({ timeout: 30_000 });
    await s!.shot('golden-02-failed-after-grader-change');
  });
});
