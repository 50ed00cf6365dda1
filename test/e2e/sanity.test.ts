/**
 * The sanity check in a real VS Code (docs/grader-workbench.md, "In the
 * editor"): "Check Graders for Gaming" on an env.py whose graders pay the
 * empty answer and the echoed prompt puts one warning per gamed task in the
 * Problems view, none for the sound task, and an error on the line of a
 * golden row that fails; an edit of the env.py, or of the golden file on
 * disk, clears them.
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

  /** Runs "Check Graders for Gaming" on the open env.py and opens the Problems view from its notification. */
  const checkGraders = async (shot: string): Promise<void> => {
    const page = s!.page;
    const quick = page.locator('.quick-input-widget');
    const input = quick.locator('input').first();
    await page.keyboard.press('F1');
    await input.fill('>HUD Studio: Check Graders for Gaming');
    await quick
      .locator('.monaco-list-row.focused', { hasText: 'Check Graders for Gaming' })
      .first()
      .waitFor({ timeout: 60_000 });
    await input.press('Enter');

    const toast = page.locator('.notification-toast', { hasText: 'of 3 tasks gameable' }).first();
    await toast.waitFor({ timeout: 240_000 });
    assert.match(await toast.innerText(), /2 of 3 tasks gameable; 1 golden row failed/);
    await s!.shot(shot);
    await toast.locator('.monaco-button', { hasText: 'Show Problems' }).first().click();
    // The toast goes once its button is used, so the next run's toast is a new one.
    await toast.waitFor({ state: 'detached', timeout: 30_000 });
  };

  test('gamed tasks become warnings on their templates, a failed golden row an error on its line; edits clear them', async () => {
    const page = s!.page;
    const quick = page.locator('.quick-input-widget');
    const input = quick.locator('input').first();
    // A golden row the sound grader fails: the right answer is paris, and this row expects london to score 1.
    const golden = join(s!.workspace, 'env.golden.jsonl');
    const rows = readFileSync(golden, 'utf8').trimEnd().split('\n');
    writeFileSync(golden, [...rows, '{"task": "sound_task", "answer": "london", "expect": 1}', ''].join('\n'));
    const failedLine = rows.length + 1;

    await page.keyboard.press('Control+P');
    await input.fill('env.py');
    await quick.locator('.monaco-list-row.focused', { hasText: 'env.py' }).first().waitFor({ timeout: 60_000 });
    await input.press('Enter');
    // The CodeLens says the language server indexed the file, so warnings can find their templates.
    await page.locator('.codelens-decoration a', { hasText: 'Run task' }).first().waitFor({ timeout: 60_000 });

    await checkGraders('sanity-00-notification');
    const markers = page.locator('.markers-panel .monaco-list-row');
    await markers.filter({ hasText: 'task empty_pays' }).first().waitFor({ timeout: 30_000 });
    await markers.filter({ hasText: 'task echo_pays' }).first().waitFor({ timeout: 30_000 });
    const goldenMarker = markers.filter({ hasText: 'Golden row failed (task sound_task)' }).first();
    await goldenMarker.waitFor({ timeout: 30_000 });
    const texts = await markers.allInnerTexts();
    assert.ok(
      texts.some((t) => /no answer at all scored 1\.00; a sound grader gives 0; also gamed by empty \(1\.00\)/.test(t)),
      `Problems: ${JSON.stringify(texts)}`,
    );
    assert.ok(
      !texts.some((t) => t.includes('Gameable grader (task sound_task')),
      `the sound task has no warning: ${JSON.stringify(texts)}`,
    );
    const goldenText = await goldenMarker.innerText();
    assert.match(goldenText, /reward 0\.00, expected == 1/, goldenText);
    assert.match(goldenText, new RegExp(`\\[Ln ${failedLine}, Col 1\\]`), `on the row's line: ${goldenText}`);
    assert.ok(
      texts.some((t) => /env\.golden\.jsonl/.test(t)),
      `the golden file is listed in Problems: ${JSON.stringify(texts)}`,
    );
    await s!.shot('sanity-01-problems');

    const env = join(s!.workspace, 'env.py');
    writeFileSync(env, `${readFileSync(env, 'utf8')}\n# edited\n`);
    await markers.filter({ hasText: 'Gameable grader' }).first().waitFor({ state: 'detached', timeout: 60_000 });
    await goldenMarker.waitFor({ state: 'detached', timeout: 60_000 });
    await s!.shot('sanity-02-cleared-after-edit');

    // The golden file is not open: its change on disk alone clears the run's problems.
    await checkGraders('sanity-03-notification-again');
    await goldenMarker.waitFor({ timeout: 30_000 });
    writeFileSync(golden, `${readFileSync(golden, 'utf8')}// edited\n`);
    await goldenMarker.waitFor({ state: 'detached', timeout: 60_000 });
    await markers.filter({ hasText: 'Gameable grader' }).first().waitFor({ state: 'detached', timeout: 60_000 });
    await s!.shot('sanity-04-cleared-after-golden-edit');
  });
});
