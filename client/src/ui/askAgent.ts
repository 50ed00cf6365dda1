/**
 * The interactive agent of editor runs: shows the prompt and sends what the
 * person types. Long prompts open in a small read-only page beside the
 * editor. Dismissing the input cancels the rollout (no answer is not an
 * empty answer).
 */
import * as vscode from 'vscode';
import type { Agent, AgentContext } from '../engine/agents/agent';
import { CancelledError } from '../engine/errors';
import { makeNonce } from '../webviewPage';
import { needsPromptPage, promptHtml } from '../promptHtml';

export class AskAgent implements Agent {
  readonly kind = 'ask';

  constructor(private readonly taskLabel: string) {}

  describe(): string {
    return 'ask: answered in the editor';
  }

  async run(ctx: AgentContext): Promise<unknown> {
    const title = `HUD Studio · ${this.taskLabel}`;
    const long = needsPromptPage(ctx.promptText);
    let page: vscode.WebviewPanel | undefined;
    if (long) {
      page = vscode.window.createWebviewPanel(
        'hudStudio.prompt',
        `Prompt · ${this.taskLabel}`,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: false },
      );
      page.webview.html = promptHtml({
        title: `Prompt for ${this.taskLabel}`,
        prompt: ctx.promptText,
        nonce: makeNonce(),
      });
    }
    const cts = new vscode.CancellationTokenSource();
    const onAbort = () => cts.cancel();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      ctx.step('waiting for the answer typed in the editor');
      const answer = await vscode.window.showInputBox(
        {
          title,
          prompt: long ? 'The prompt is shown beside the editor.' : ctx.promptText || '(empty prompt)',
          placeHolder: 'Your answer (Enter sends it, Escape cancels the rollout)',
          ignoreFocusOut: true,
        },
        cts.token,
      );
      if (answer === undefined || ctx.signal.aborted) throw new CancelledError('the answer prompt');
      ctx.log('agent', `answer typed: ${answer}`);
      return answer;
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      cts.dispose();
      page?.dispose();
    }
  }
}
