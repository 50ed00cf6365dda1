/**
 * A chat model of VS Code's own Language Model API in the actor's seat, in a
 * real VS Code (docs/models.md, "VS Code's own chat models"). A test-only
 * provider extension (fixtures/model-provider) offers one model through
 * `vscode.lm`; it answers from a scripted server on 127.0.0.1 that this test
 * starts and reads. The episode is real and multi-turn: the model first calls
 * `bash`, then submits what the tool result it got back says, so a right
 * answer needs the tool declarations and the tool result to have gone through
 * VS Code and HUD Studio's loop intact.
 */
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, type Session, useSession } from './codeServer';
import {
  type Script,
  type ScriptedModelServer,
  type ScriptedRequest,
  startScriptedModelServer,
  toolResultsOf,
} from './scriptedModelServer';

const FIXTURE = join(ROOT, 'test', 'e2e', 'fixtures', 'editor-model');
const PROVIDER = join(ROOT, 'test', 'e2e', 'fixtures', 'model-provider');
const PROFILE = 'Run with vscode/scripted-1';

/**
 * First turn: a `bash` call running `command`. Second turn: `submit` of the
 * text of the tool result that came back for that call. Any later turn is a
 * script error the test sees in the server's replies.
 */
function bashThenSubmit(command: string): Script {
  return (req) => {
    const turn = req.messages.filter((m) => m.role === 'assistant').length;
    if (turn === 0) return [{ type: 'tool_call', callId: 'call-bash', name: 'bash', input: { command } }];
    const result = toolResultsOf(req).get('call-bash') ?? '(no result for call-bash)';
    // The tool result is stdout then `[exit code 0]`; the answer is stdout.
    const answer = result.split('\n')[0] ?? '';
    return [
      { type: 'text', value: `bash said ${answer}` },
      { type: 'tool_call', callId: 'call-submit', name: 'submit', input: { answer } },
    ];
  };
}

/** The env.py row of the Testing view, whatever its state. */
function envRow({ page }: Session) {
  return page.locator('.test-explorer .monaco-list-row[aria-label^="env.py"]').first();
}

/**
 * Opens "Execute Using Profile..." on the env.py row, filtered to the model's
 * profile, and returns the profiles it lists then.
 */
async function openProfilePick(s: Session): Promise<string[]> {
  const { ui } = s;
  await ui.showContainer('Testing');
  await ui.chooseFromContextMenu(envRow(s), 'Execute Using Profile...');
  await ui.quick.locator('.monaco-list-row').first().waitFor({ timeout: 30_000 });
  const labels = (await ui.quick.locator('.monaco-list-row').allInnerTexts()).map((l) => l.replace(/\s+/g, ' ').trim());
  return labels;
}

/** Runs the env.py row with the model's profile; answers VS Code's consent prompt if it asks. */
async function runWithModel(s: Session, expect: 'Passed' | 'Failed'): Promise<void> {
  const { page, ui, shot } = s;
  const labels = await openProfilePick(s);
  assert.ok(
    labels.some((l) => l.includes(PROFILE)),
    `"${PROFILE}" is not offered: ${JSON.stringify(labels)}`,
  );
  await ui.input.fill(PROFILE);
  await ui.choose(PROFILE);
  const done = ui.testRow('env.py', expect).first();
  const dialog = page.locator('.monaco-dialog-box').first();
  await dialog.or(done).waitFor({ timeout: 90_000 });
  if (await dialog.isVisible()) {
    consentPrompt = (await dialog.innerText()).replace(/\s+/g, ' ');
    await shot('editor-model-consent');
    await dialog
      .locator('.monaco-button', { hasText: /^Allow/ })
      .first()
      .click();
    await dialog.waitFor({ state: 'detached', timeout: 30_000 });
  }
  await done.waitFor({ timeout: 90_000 });
}

/** What VS Code's consent prompt said, when it asked (once, on the first request). */
let consentPrompt: string | undefined;

/** The names of the tools a request declared. */
function toolNames(req: ScriptedRequest): string[] {
  return req.tools.map((t) => t.name);
}

describe('a VS Code chat model in the actor seat', () => {
  let model: ScriptedModelServer | undefined;
  const server = (): ScriptedModelServer => {
    if (!model) throw new Error('the scripted model server is not running');
    return model;
  };
  // Registered before the session's hook, so the server is up when the provider first asks it.
  before(async () => {
    model = await startScriptedModelServer(bashThenSubmit('echo $((6*7))'));
  });
  after(async () => {
    await model?.close();
  });

  const e2e = useSession(
    {
      name: 'editor-model',
      fixture: FIXTURE,
      extensions: [PROVIDER],
      settings: {
        'hudStudio.runtime': 'local',
        // The harness turns chat off everywhere else; the Language Model API is part of it.
        'chat.disableAIFeatures': false,
      },
    },
    () => ({ 'scriptedModel.url': server().url }),
  );

  e2e.test('the model is a Testing profile; a right answer found with bash and submitted scores 1', async (s, t) => {
    const { ui, shot } = s;
    await ui.quickOpen('env.py');
    await ui.lens('Run task').first().waitFor({ timeout: 60_000 });
    await ui.showContainer('Testing');
    await envRow(s).waitFor({ timeout: 60_000 });
    await runWithModel(s, 'Passed');
    await shot('editor-model-00-passed');
    t.diagnostic(`consent prompt: ${consentPrompt ?? 'none shown'}`);

    // What the model server got: the three tools declared, then the bash result back under the call's id.
    const reqs = server().requests;
    assert.equal(reqs.length, 2, `two model turns: ${JSON.stringify(reqs)}`);
    const [first, second] = reqs as [ScriptedRequest, ScriptedRequest];
    assert.deepEqual(toolNames(first).sort(), ['bash', 'editor', 'submit']);
    const bash = first.tools.find((t) => t.name === 'bash');
    assert.match(JSON.stringify(bash?.inputSchema), /"command"/);
    assert.equal(first.messages[0]?.role, 'user', 'the system prompt goes first, as a user message');
    assert.match(JSON.stringify(first.messages), /What is 6 times 7\?/);
    assert.equal(first.modelOptions['maxTokens'], 4096);
    const call = second.messages.flatMap((m) => m.content).find((p) => p.type === 'tool_call');
    assert.deepEqual(call, {
      type: 'tool_call',
      callId: 'call-bash',
      name: 'bash',
      input: { command: 'echo $((6*7))' },
    });
    assert.match(toolResultsOf(second).get('call-bash') ?? '', /^42\n\[exit code 0\]/);

    // What the user sees: the reward on the task's line, and the episode in the trace explorer.
    const body = await ui.openTraceFromLens('reward 1.00', 'Agent steps (2)', 60_000);
    await shot('editor-model-01-trace');
    assert.match(body, /vscode\/scripted-1/);
    assert.match(body, /tokens: /, 'token counts from the provider');
    assert.match(body, /bash said 42/);
    await ui.closeAllEditors();
  });

  e2e.test('a wrong answer from the same model scores 0', async (s) => {
    const { ui, shot } = s;
    const before = server().requests.length;
    server().setScript(bashThenSubmit('echo $((6*7-1))'));
    await runWithModel(s, 'Failed');
    await shot('editor-model-02-failed');
    const reqs = server().requests.slice(before);
    assert.equal(reqs.length, 2);
    assert.match(toolResultsOf(reqs[1]!).get('call-bash') ?? '', /^41\n/);
    await ui.quickOpen('env.py');
    await ui.lens('reward 0.00').first().waitFor({ timeout: 60_000 });
  });

  e2e.test('the model going away removes its profile', async (s) => {
    const { page, ui, shot } = s;
    await ui.command('Scripted Model: Withdraw the Model');
    // The profiles are rebuilt when VS Code says the models changed: look again until the profile is gone.
    const deadline = Date.now() + 30_000;
    let labels = await openProfilePick(s);
    while (labels.some((l) => l.includes(PROFILE))) {
      if (Date.now() > deadline) assert.fail(`"${PROFILE}" is still offered: ${JSON.stringify(labels)}`);
      await page.keyboard.press('Escape');
      await ui.quick.waitFor({ state: 'hidden', timeout: 30_000 });
      labels = await openProfilePick(s);
    }
    await shot('editor-model-03-withdrawn');
    assert.ok(labels.length > 0, 'the other profiles are still offered');
    await page.keyboard.press('Escape');
  });
});
