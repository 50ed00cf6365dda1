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
      .locator('.test-explorer .monaco-list-row[aria-label^="golden answers (Passed)"]')
      .waitFor({ timeout: 180_000 })
      .catch(async (err: unknown) => {
        const labels = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
        await s!.shot('golden-00-timeout');
        throw new Error(`${String(err)}; rows: ${JSON.stringify(labels)}`);
      });
    await s!.shot('golden-01-passed');

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
  });
});
