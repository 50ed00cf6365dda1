/**
 * Workspace Trust in a real VS Code: in Restricted Mode the extension still
 * indexes (views, CodeLens: no code runs for that), but a click on Run is
 * refused with a message that says why and what to do, and starts nothing.
 */
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, useSession } from './codeServer';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'python', 'verifier_same_env');

describe('HUD Studio in Restricted Mode', () => {
  const e2e = useSession({
    name: 'restricted',
    fixture: FIXTURE,
    workspaceTrust: true,
    settings: {
      'security.workspace.trust.banner': 'always',
      'hudStudio.agent': 'fixed',
      'hudStudio.agentAnswer': 'secret',
      'hudStudio.runtime': 'docker',
    },
  });

  e2e.test('indexing works, running is refused with a clear message', async ({ page, ui, shot, workspace }) => {
    await ui.quickOpen('env.py');
    const runLens = ui.lens('Run task');
    await runLens.first().waitFor({ timeout: 60_000 });
    await runLens.first().click();
    const toast = page.locator('.notification-toast', { hasText: 'Restricted Mode' });
    await toast.first().waitFor({ timeout: 30_000 });
    const text = (await toast.first().textContent()) ?? '';
    await shot('restricted-01-run-refused');
    assert.match(text, /Running tasks is disabled in Restricted Mode/);
    assert.match(text, /Trust the workspace/);
    assert.match(text, /Manage Workspace Trust/);
    // Nothing ran: no trace was written.
    assert.equal(existsSync(join(workspace, '.hud-studio')), false);
  });
});
