/**
 * Per-environment secrets in VS Code's SecretStorage (never in settings).
 * SecretStorage cannot list its keys, so the variable names (not values)
 * are remembered in global state.
 */
import * as vscode from 'vscode';

const NAMES_KEY = 'hudStudio.secretNames';
const VAR = /^[A-Za-z_][A-Za-z0-9_]*$/;

type Names = Record<string, string[]>;

export class EnvironmentSecrets {
  constructor(private readonly context: vscode.ExtensionContext) {}

  private names(): Names {
    return this.context.globalState.get<Names>(NAMES_KEY, {});
  }

  private key(env: string, name: string): string {
    return `hudStudio.secret/${env}/${name}`;
  }

  async set(env: string, name: string, value: string): Promise<void> {
    await this.context.secrets.store(this.key(env, name), value);
    const names = this.names();
    names[env] = [...new Set([...(names[env] ?? []), name])].sort();
    await this.context.globalState.update(NAMES_KEY, names);
  }

  async delete(env: string, name: string): Promise<void> {
    await this.context.secrets.delete(this.key(env, name));
    const names = this.names();
    names[env] = (names[env] ?? []).filter((n) => n !== name);
    if (!names[env].length) delete names[env];
    await this.context.globalState.update(NAMES_KEY, names);
  }

  /** The secrets of one environment, as variables for its substrates only. */
  async forEnvironment(env: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const name of this.names()[env] ?? []) {
      const v = await this.context.secrets.get(this.key(env, name));
      if (v !== undefined) out[name] = v;
    }
    return out;
  }

  /** "HUD Studio: Set Environment Secret". */
  async promptSet(envNames: string[]): Promise<void> {
    const env = await pickEnvironment(envNames, 'Set a secret for which environment?');
    if (!env) return;
    const name = await vscode.window.showInputBox({
      title: `Secret for environment "${env}"`,
      prompt: 'Variable name, e.g. HUD_API_KEY. Only substrates of this environment receive it.',
      ignoreFocusOut: true,
      validateInput: (v) => (VAR.test(v) ? undefined : 'Use letters, digits and _, not starting with a digit'),
    });
    if (!name) return;
    const value = await vscode.window.showInputBox({
      title: `${env} · ${name}`,
      prompt: 'Value (stored in VS Code secret storage)',
      password: true,
      ignoreFocusOut: true,
    });
    if (value === undefined) return;
    await this.set(env, name, value);
    void vscode.window.showInformationMessage(
      `HUD Studio: saved ${name} for environment "${env}". Only its substrates receive it.`,
    );
  }

  /** "HUD Studio: Delete Environment Secret". */
  async promptDelete(): Promise<void> {
    const items = Object.entries(this.names()).flatMap(([env, names]) =>
      names.map((name) => ({ label: name, description: env, env })),
    );
    if (!items.length) {
      void vscode.window.showInformationMessage('HUD Studio: no environment secrets are stored.');
      return;
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'Delete which secret?' });
    if (!pick) return;
    await this.delete(pick.env, pick.label);
    void vscode.window.showInformationMessage(`HUD Studio: deleted ${pick.label} of environment "${pick.env}".`);
  }
}

async function pickEnvironment(envNames: string[], title: string): Promise<string | undefined> {
  const other = '$(edit) Another environment name…';
  const pick = envNames.length ? await vscode.window.showQuickPick([...envNames, other], { title }) : other;
  if (pick !== other) return pick;
  return vscode.window.showInputBox({
    title,
    prompt: 'Environment name as in Environment("name")',
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Required'),
  });
}
