/**
 * Workspace Trust in a real VS Code: in Restricted Mode the extension still
 * indexes (views, CodeLens: no code runs for that), but a click on Run is
 * refused with a message that says why and what to do, and starts nothing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Session, openSession, packageVsix, tempDir } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'python', 'verifier_same_env');

describe('HUD Studio in Restricted Mode', () => {
  let dir: string;
  let s: Session | undefined;

  before(async () => {
    dir = tempDir('hud-studio-vsix-');
    s = await openSession({
      name: 'restricted',
      vsix: packageVsix(dir),
      fixture: FIXTURE,
      workspaceTrust: true,
      settings: {
        'security.workspace.trust.banner': 'always',
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

  test('indexing works, running is refused with a clear message', async () => {
    const page = s!.page;
    await page.keyboard.press('Control+P');
    const quickOpen = page.locator('.quick-input-widget input');
    await quickOpen.fill('env.py');
    await page
      .locator('.quick-input-list .monaco-list-row.focused', { hasText: 'env.py' })
      .first()
      .waitFor({ timeout: 60_000 });
    await quickOpen.press('Enter');
    const runLens = page.locator('.codelens-decoration a', { hasText: 'Run task' });
    await runLens.first().waitFor({ timeout: 60_000 });
    await runLens.first().click();
    const toast = page.locator('.notification-toast', { hasText: 'Restricted Mode' });
    await toast.first().waitFor({ timeout: 30_000 });
    const text = (await toast.first().textContent()) ?? '';
    await s!.shot('restricted-01-run-refused');
    assert.match(text, /Running tasks is disabled in Restricted Mode/);
    assert.match(text, /Trust the workspace/);
    assert.match(text, /Manage Workspace Trust/);
    // Nothing ran: no trace was written.
    assert.equal(existsSync(join(s!.workspace, '.hud-studio')), false);
  });
});
