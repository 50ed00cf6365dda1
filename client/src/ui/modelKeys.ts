/**
 * Model API keys for the llm agent in VS Code's SecretStorage, one command
 * per provider (docs/models.md). Stored keys win over the variables the
 * editor was started with. They go to the model library only: never to a
 * setting, a trace, a log, a webview or a substrate.
 */
import * as vscode from 'vscode';

const PROVIDERS = [
  { command: 'hudStudio.setOpenAiKey', name: 'OpenAI', variable: 'OPENAI_API_KEY' },
  { command: 'hudStudio.setAnthropicKey', name: 'Anthropic', variable: 'ANTHROPIC_API_KEY' },
  { command: 'hudStudio.setHudKey', name: 'HUD', variable: 'HUD_API_KEY' },
] as const;

/** Variables the model lookup reads besides the keys. */
const PASSED_THROUGH = ['HUD_GATEWAY_URL', 'OPENAI_COMPATIBLE_API_KEY'] as const;

const storageKey = (variable: string): string => `hudStudio.modelKey/${variable}`;

export class ModelKeys {
  constructor(private readonly context: vscode.ExtensionContext) {}

  register(): vscode.Disposable[] {
    return [
      ...PROVIDERS.map((p) => vscode.commands.registerCommand(p.command, () => this.promptSet(p.name, p.variable))),
      vscode.commands.registerCommand('hudStudio.deleteModelKey', () => this.promptDelete()),
    ];
  }

  /** What the llm agent resolves models against: stored keys over the editor's own environment. */
  async env(): Promise<Record<string, string | undefined>> {
    const out: Record<string, string | undefined> = {};
    for (const v of [...PROVIDERS.map((p) => p.variable), ...PASSED_THROUGH]) out[v] = process.env[v];
    for (const p of PROVIDERS) {
      const stored = await this.context.secrets.get(storageKey(p.variable));
      if (stored) out[p.variable] = stored;
    }
    return out;
  }

  private async promptSet(name: string, variable: string): Promise<void> {
    const value = await vscode.window.showInputBox({
      title: `${name} API key`,
      prompt: `Stored in VS Code secret storage; used instead of ${variable}. Only the model client sees it.`,
      password: true,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Required'),
    });
    if (!value) return;
    await this.context.secrets.store(storageKey(variable), value.trim());
    void vscode.window.showInformationMessage(`HUD Studio: saved the ${name} API key.`);
  }

  private async promptDelete(): Promise<void> {
    const stored: { label: string; variable: string }[] = [];
    for (const p of PROVIDERS)
      if (await this.context.secrets.get(storageKey(p.variable))) stored.push({ label: p.name, variable: p.variable });
    if (!stored.length) {
      void vscode.window.showInformationMessage('HUD Studio: no model API keys are stored.');
      return;
    }
    const pick = await vscode.window.showQuickPick(stored, { title: 'Delete which API key?' });
    if (!pick) return;
    await this.context.secrets.delete(storageKey(pick.variable));
    void vscode.window.showInformationMessage(`HUD Studio: deleted the ${pick.label} API key.`);
  }
}
