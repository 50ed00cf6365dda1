/**
 * A suite made by a list comprehension, as the SDK's quickstart writes one,
 * in a real VS Code: each element gets a CodeLens of its own, named, and a
 * click runs that element with its own arguments (the agent always answers
 * "secret", so only the element made with "secret" scores); the lenses
 * after the runs and the Testing view tell the elements apart.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, useSession } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'e2e', 'fixtures', 'comprehension');

describe('a comprehension suite in code-server', () => {
  const e2e = useSession({
    name: 'comprehension',
    fixture: FIXTURE,
    settings: {
      'hudStudio.agent': 'fixed',
      'hudStudio.agentAnswer': 'secret',
      'hudStudio.runtime': 'local',
    },
  });

  e2e.test('each element has its lens, and runs with its own arguments', async ({ page, ui, shot }) => {
    await ui.quickOpen('tasks.py');
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'Environment("spelling")' })
      .waitFor({ timeout: 30_000 });
    const lenses = ui.lens(/Run task tasks\[\d\]/);
    await lenses.nth(1).waitFor({ timeout: 60_000 });
    assert.deepEqual(await lenses.allTextContents(), ['▶ Run task tasks[0]', '▶ Run task tasks[1]']);
    await shot('comprehension-01-lenses');

    for (const [element, reward] of [
      ['tasks[1]', '0.00'],
      ['tasks[0]', '1.00'],
    ] as const) {
      await ui.dismissToasts();
      await ui.lens(`Run task ${element}`).first().click();
      const toast = page.locator('.notification-toast', { hasText: `${element}: reward` });
      await toast.first().waitFor({ timeout: 180_000 });
      const text = (await toast.first().textContent()) ?? '';
      assert.match(text, new RegExp(`${element.replace(/[[\]]/g, '\\$&')}: reward ${reward}`), text);
    }
    // After the runs, each element's lens says whose reward it shows.
    await ui.lens('tasks[1]: reward 0.00').first().waitFor({ timeout: 30_000 });
    await ui.lens('tasks[0]: reward 1.00').first().waitFor({ timeout: 30_000 });
    await shot('comprehension-02-rewards');

    // The Testing view holds both elements, each with the verdict of its own run.
    await ui.showContainer('Testing');
    const rows = page.locator('.test-explorer .monaco-list-row');
    await ui.expand(rows.filter({ hasText: 'tasks.py' }).first());
    await rows
      .filter({ hasText: 'tasks[1]' })
      .and(page.locator('[aria-label*="Failed"]'))
      .first()
      .waitFor({ timeout: 30_000 });
    await rows
      .filter({ hasText: 'tasks[0]' })
      .and(page.locator('[aria-label*="Passed"]'))
      .first()
      .waitFor({ timeout: 30_000 });
    await shot('comprehension-03-testing-view');
  });
});
