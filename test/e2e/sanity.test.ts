/**
 * The sanity check in a real VS Code (docs/grader-workbench.md, "In the
 * editor"): "Check Graders for Gaming" on an env.py whose graders pay the
 * empty answer and the echoed prompt puts one warning per gamed task in the
 * Problems view, none for the sound task, and an edit of the file clears them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Session, openSession, packageVsix, tempDir } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'integration', 'regrade', 'fixtures', 'sanity');

describe('the sanity check in the editor', () => {
  let dir: string;
  let s: Session | undefined;

  before(async () => {
    dir = tempDir('hud-studio-vsix-');
    s = await openSession({
      name: 'sanity',
      vsix: packageVsix(dir),
      fixture: FIXTURE,
      settings: { 'hudStudio.runtime': 'local' },
    });
  });

  after(async () => {
    await s?.shot('sanity-last').catch(() => undefined);
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('gamed tasks become warnings on their templates; an edit clears them', async () => {
    const page = s!.page;
    const quick = page.locator('.quick-input-widget');
    const input = quick.locator('input').first();
    await page.keyboard.press('Control+P');
    await input.fill('env.py');
    await quick.locator('.monaco-list-row.focused', { hasText: 'env.py' }).first().waitFor({ timeout: 60_000 });
    await input.press('Enter');
    // The CodeLens says the language server indexed the file, so warnings can find their templates.
    await page.locator('.codelens-decoration a', { hasText: 'Run task' }).first().waitFor({ timeout: 60_000 });

    await page.keyboard.press('F1');
    await input.fill('>HUD Studio: Check Graders for Gaming');
    await quick
      .locator('.monaco-list-row.focused', { hasText: 'Check Graders for Gaming' })
      .first()
      .waitFor({ timeout: 60_000 });
    await input.press('Enter');

    const toast = page.locator('.notification-toast', { hasText: 'of 3 tasks gameable' }).first();
    await toast.waitFor({ timeout: 240_000 });
    assert.match(await toast.innerText(), /2 of 3 tasks gameable/);
    await s!.shot('sanity-00-notification');
    await toast.locator('.monaco-button', { hasText: 'Show Problems' }).first().click();

    const markers = page.locator('.markers-panel .monaco-list-row');
    await markers.filter({ hasText: 'task empty_pays' }).first().waitFor({ timeout: 30_000 });
    await markers.filter({ hasText: 'task echo_pays' }).first().waitFor({ timeout: 30_000 });
    const texts = await markers.allInnerTexts();
    assert.ok(
      texts.some((t) => /no answer at all scored 1\.00; a sound grader gives 0; also gamed by empty \(1\.00\)/.test(t)),
      `Problems: ${JSON.stringify(texts)}`,
    );
    assert.ok(!texts.some((t) => t.includes('sound_task')), `the sound task has no warning: ${JSON.stringify(texts)}`);
    await s!.shot('sanity-01-problems');

    const env = join(s!.workspace, 'env.py');
    writeFileSync(env, `${readFileSync(env, 'utf8')}\n# edited\n`);
    await markers.filter({ hasText: 'Gameable grader' }).first().waitFor({ state: 'detached', timeout: 60_000 });
    await s!.shot('sanity-02-cleared-after-edit');
  });
});
