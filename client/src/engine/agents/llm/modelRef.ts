/**
 * `--model PROVIDER/MODEL` names a model and, with the environment, where it
 * is served and which key it needs (docs/models.md). The key stays in a
 * private field: it is handed to the model library and never serialized, so
 * it cannot reach a trace, a job file or a log by accident.
 */
import { UsageError } from '../../errors';

export type ModelProvider = 'openai' | 'anthropic' | 'hud' | 'openai-compatible' | 'vscode';
/** `vscode-lm`: a chat model of the running VS Code (its Language Model API), reached through the editor. */
export type ModelApi = 'openai' | 'anthropic' | 'vscode-lm';

const PROVIDERS: Record<ModelProvider, { api: ModelApi; keyVar: string | undefined }> = {
  openai: { api: 'openai', keyVar: 'OPENAI_API_KEY' },
  anthropic: { api: 'anthropic', keyVar: 'ANTHROPIC_API_KEY' },
  hud: { api: 'openai', keyVar: 'HUD_API_KEY' },
  'openai-compatible': { api: 'openai', keyVar: 'OPENAI_COMPATIBLE_API_KEY' },
  vscode: { api: 'vscode-lm', keyVar: undefined },
};

export const MODEL_KEY_VARS: readonly string[] = Object.values(PROVIDERS).flatMap((p) => (p.keyVar ? [p.keyVar] : []));

/** A resolved model: what to call, where, and (privately) with which key. */
export class ModelEndpoint {
  readonly #apiKey: string | undefined;

  constructor(
    /** As typed, `provider/model`: the name in traces, tables and job files. */
    readonly name: string,
    readonly provider: ModelProvider,
    readonly api: ModelApi,
    readonly model: string,
    readonly baseURL: string | undefined,
    apiKey: string | undefined,
  ) {
    this.#apiKey = apiKey;
  }

  /** Only the model clients call this. */
  apiKey(): string | undefined {
    return this.#apiKey;
  }

  toJSON(): Record<string, string> {
    return { name: this.name, api: this.api, ...(this.baseURL ? { baseURL: this.baseURL } : {}) };
  }
}

export interface ModelLookup {
  /** `--base-url`: wins over the provider's default address. */
  baseUrl?: string;
  /** Where keys and HUD_GATEWAY_URL come from (the CLI passes process.env; the editor SecretStorage). */
  env: Readonly<Record<string, string | undefined>>;
}

export function parseModelName(text: string): { provider: ModelProvider; model: string } {
  const slash = text.indexOf('/');
  const provider = text.slice(0, Math.max(0, slash));
  const model = text.slice(slash + 1);
  if (slash <= 0 || !model || !(provider in PROVIDERS)) {
    throw new UsageError(`--model "${text}" is not PROVIDER/MODEL`, {
      hint: 'use openai/MODEL, anthropic/MODEL, hud/MODEL or openai-compatible/MODEL (with --base-url)',
    });
  }
  return { provider: provider as ModelProvider, model };
}

export function resolveModel(text: string, lookup: ModelLookup): ModelEndpoint {
  const { provider, model } = parseModelName(text);
  if (provider === 'vscode') {
    throw new UsageError(`--model ${text} is a chat model of the running VS Code, which only the editor can reach`, {
      hint: 'run it from the editor (a "Run with vscode/..." profile), or name an API model here',
    });
  }
  const spec = PROVIDERS[provider];
  let baseURL = lookup.baseUrl || undefined;
  if (!baseURL && provider === 'hud') {
    baseURL = lookup.env['HUD_GATEWAY_URL'] || undefined;
    if (!baseURL)
      throw new UsageError(`--model ${text} needs HUD_GATEWAY_URL`, {
        hint: 'set HUD_GATEWAY_URL, or pass --base-url URL',
      });
  }
  if (!baseURL && provider === 'openai-compatible') {
    throw new UsageError(`--model ${text} needs --base-url`, {
      hint: 'e.g. --base-url http://127.0.0.1:8000/v1 for vLLM',
    });
  }
  if (baseURL) checkUrl(baseURL);
  const apiKey = spec.keyVar ? lookup.env[spec.keyVar] || undefined : undefined;
  if (!apiKey && (provider === 'openai' || provider === 'anthropic' || provider === 'hud') && !lookup.baseUrl) {
    throw new UsageError(`--model ${text} needs ${spec.keyVar}`, {
      hint: `export ${spec.keyVar}=... (or pass --base-url for a server that needs none)`,
    });
  }
  return new ModelEndpoint(text, provider, spec.api, model, baseURL, apiKey);
}

function checkUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--base-url "${url}" is not a URL`, { hint: 'e.g. http://127.0.0.1:11434/v1' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`--base-url "${url}" must be http(s)`, { hint: 'e.g. http://127.0.0.1:11434/v1' });
  }
}

/** A chat model the running VS Code offers (vscode.lm), named `vscode/ID`; it needs no key of ours. */
export function editorModelEndpoint(id: string): ModelEndpoint {
  return new ModelEndpoint(`vscode/${id}`, 'vscode', 'vscode-lm', id, undefined, undefined);
}
