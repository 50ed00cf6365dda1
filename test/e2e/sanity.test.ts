/**
 * The sanity check in a real VS Code (docs/grader-workbench.md, "In the
 * editor"): "Check Graders for Gaming" on an env.py whose graders pay the
 * empty answer and the echoed prompt puts one warning per gamed task in the
 * Problems view, none for the sound task, and an error on the line of a
 * golden row that fails; an edit of the env.py, or of the golden file on
 * disk, clears them.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type Session, useSession } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'integration', 'regrade', 'fixtures', 'sanity');

/** Runs "Check Graders for Gaming" on the open env.py and opens the Problems view from its notification. */
async function checkGraders({ page, ui, shot }: Session, shotName: string): Promise<void> {
  await ui.command('HUD Studio: Check Graders for Gaming');
  const toast = page.locator('.notification-toast', { hasText: 'of 3 tasks gameable' }).first();
  await toast.waitFor({ timeout: 240_000 });
  assert.match(await toast.innerText(), /2 of 3 tasks gameable; 1 golden row failed/);
  await shot(shotName);
  await toast.locator('.monaco-button', { hasText: 'Show Problems' }).first().click();
  // The toast goes once its button is used, so the next run's toast is a new one.
  await toast.waitFor({ state: 'detached', timeout: 30_000 });
}

describe('the sanity check in the editor', () => {
  const e2e = useSession({ name: 'sanity', fixture: FIXTURE, settings: { 'hudStudio.runtime': 'local' } });

  e2e.test(
    'gamed tasks become warnings on their templates, a failed golden row an error on its line; edits clear them',
    async (s) => {
      const { page, ui, shot, workspace } = s;
      // A golden row the sound grader fails: the right answer is paris, and this row expects london to score 1.
      const golden = join(workspace, 'env.golden.jsonl');
      const rows = readFileSync(golden, 'utf8').trimEnd().split('\n');
      writeFileSync(golden, [...rows, '{"task": "sound_task", "answer": "london", "expect": 1}', ''].join('\n'));
      const failedLine = rows.length + 1;

      await ui.quickOpen('env.py');
      // The CodeLens says the language server indexed the file, so warnings can find their templates.
      await ui.lens('Run task').first().waitFor({ timeout: 60_000 });

      await checkGraders(s, 'sanity-00-notification');
      const markers = page.locator('.markers-panel .monaco-list-row');
      await markers.filter({ hasText: 'task empty_pays' }).first().waitFor({ timeout: 30_000 });
      await markers.filter({ hasText: 'task echo_pays' }).first().waitFor({ timeout: 30_000 });
      const goldenMarker = markers.filter({ hasText: 'Golden row failed (task sound_task)' }).first();
      await goldenMarker.waitFor({ timeout: 30_000 });
      const texts = await markers.allInnerTexts();
      assert.ok(
        texts.some((t) =>
          /no answer at all scored 1\.00; a sound grader gives 0; also gamed by empty \(1\.00\)/.test(t),
        ),
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
      await shot('sanity-01-problems');

      const env = join(workspace, 'env.py');
      writeFileSync(env, `${readFileSync(env, 'utf8')}\n# edited\n`);
      await markers.filter({ hasText: 'Gameable grader' }).first().waitFor({ state: 'detached', timeout: 60_000 });
      await goldenMarker.waitFor({ state: 'detached', timeout: 60_000 });
      await shot('sanity-02-cleared-after-edit');

      // The golden file is not open: its change on disk alone clears the run's problems.
      await checkGraders(s, 'sanity-03-notification-again');
      await goldenMarker.waitFor({ timeout: 30_000 });
      writeFileSync(golden, `${readFileSync(golden, 'utf8')}// edited\n`);
      await goldenMarker.waitFor({ state: 'detached', timeout: 60_000 });
      await markers.filter({ hasText: 'Gameable grader' }).first().waitFor({ state: 'detached', timeout: 60_000 });
      await shot('sanity-04-cleared-after-golden-edit');
    },
  );
});
