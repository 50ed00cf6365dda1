/**
 * The sanity check in a real VS Code (docs/grader-workbench.md, "In the
 * editor"): "Check Graders for Gaming" on an env.py whose graders pay the
 * empty answer and the echoed prompt puts one warning per gamed task in the
 * Problems view, none for the sound task, and an edit of the file clears them.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, useSession } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'integration', 'regrade', 'fixtures', 'sanity');

describe('the sanity check in the editor', () => {
  const e2e = useSession({ name: 'sanity', fixture: FIXTURE, settings: { 'hudStudio.runtime': 'local' } });

  e2e.test(
    'gamed tasks become warnings on their templates; an edit clears them',
    async ({ page, ui, shot, workspace }) => {
      await ui.quickOpen('env.py');
      // The CodeLens says the language server indexed the file, so warnings can find their templates.
      await ui.lens('Run task').first().waitFor({ timeout: 60_000 });
      await ui.command('HUD Studio: Check Graders for Gaming');

      const toast = page.locator('.notification-toast', { hasText: 'of 3 tasks gameable' }).first();
      await toast.waitFor({ timeout: 240_000 });
      assert.match(await toast.innerText(), /2 of 3 tasks gameable/);
      await shot('sanity-00-notification');
      await toast.locator('.monaco-button', { hasText: 'Show Problems' }).first().click();

      const markers = page.locator('.markers-panel .monaco-list-row');
      await markers.filter({ hasText: 'task empty_pays' }).first().waitFor({ timeout: 30_000 });
      await markers.filter({ hasText: 'task echo_pays' }).first().waitFor({ timeout: 30_000 });
      const texts = await markers.allInnerTexts();
      assert.ok(
        texts.some((t) =>
          /no answer at all scored 1\.00; a sound grader gives 0; also gamed by empty \(1\.00\)/.test(t),
        ),
        `Problems: ${JSON.stringify(texts)}`,
      );
      assert.ok(
        !texts.some((t) => t.includes('sound_task')),
        `the sound task has no warning: ${JSON.stringify(texts)}`,
      );
      await shot('sanity-01-problems');

      const env = join(workspace, 'env.py');
      writeFileSync(env, `${readFileSync(env, 'utf8')}\n# edited\n`);
      await markers.filter({ hasText: 'Gameable grader' }).first().waitFor({ state: 'detached', timeout: 60_000 });
      await shot('sanity-02-cleared-after-edit');
    },
  );
});
