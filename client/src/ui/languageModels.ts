/**
 * VS Code's own chat models (the Language Model API) as models of the llm
 * agent (docs/models.md): the binding of the engine's typed interface
 * (engine/agents/llm/editorModelClient.ts) to `vscode.lm`, and the models
 * this VS Code offers now. Where it offers none (code-server without a model
 * provider extension) there is simply nothing to run with.
 */
import * as vscode from 'vscode';
import { UsageError } from '../engine/errors';
import { EditorModelClient, type EditorLanguageModelApi } from '../engine/agents/llm/editorModelClient';
import { DEFAULT_LLM_SETTINGS, LlmAgent } from '../engine/agents/llm/llmAgent';
import { editorModelEndpoint } from '../engine/agents/llm/modelRef';

/** The prefix of a VS Code model's name in HUD Studio (`vscode/ID`). */
export const EDITOR_MODEL_PREFIX = 'vscode/';

const editorApi: EditorLanguageModelApi = {
  userMessage: (parts) =>
    vscode.LanguageModelChatMessage.User(
      parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolResultPart)[],
    ),
  assistantMessage: (parts) =>
    vscode.LanguageModelChatMessage.Assistant(
      parts as (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[],
    ),
  textPart: (text) => new vscode.LanguageModelTextPart(text),
  toolCallPart: (callId, name, input) => new vscode.LanguageModelToolCallPart(callId, name, input),
  toolResultPart: (callId, text) =>
    new vscode.LanguageModelToolResultPart(callId, [new vscode.LanguageModelTextPart(text)]),
  textOf: (part) => (part instanceof vscode.LanguageModelTextPart ? part.value : undefined),
  toolCallOf: (part) => (part instanceof vscode.LanguageModelToolCallPart ? part : undefined),
  cancellation: (signal) => {
    const source = new vscode.CancellationTokenSource();
    const cancel = (): void => source.cancel();
    if (signal.aborted) source.cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    return {
      token: source.token,
      dispose: () => {
        signal.removeEventListener('abort', cancel);
        source.dispose();
      },
    };
  },
  errorCode: (err) => (err instanceof vscode.LanguageModelError ? err.code : undefined),
};

/** The chat models this VS Code offers now, as `vscode/ID` names; none where the API or a provider is missing. */
export async function editorModelNames(): Promise<string[]> {
  try {
    const models = await vscode.lm.selectChatModels();
    return models.map((m) => `${EDITOR_MODEL_PREFIX}${m.id}`);
  } catch {
    return [];
  }
}

export function isEditorModel(name: string): boolean {
  return name.startsWith(EDITOR_MODEL_PREFIX);
}

/** The llm agent on the VS Code model `vscode/ID`; a model no longer offered is a usage error. */
export async function editorModelAgent(name: string): Promise<LlmAgent> {
  const id = name.slice(EDITOR_MODEL_PREFIX.length);
  const [model] = await vscode.lm.selectChatModels({ id });
  if (!model) {
    throw new UsageError(`VS Code offers no chat model "${id}" now`, {
      hint: 'install or sign in to the extension that provides it, or run with an API model',
    });
  }
  const endpoint = editorModelEndpoint(id);
  return new LlmAgent(endpoint, DEFAULT_LLM_SETTINGS, new EditorModelClient(endpoint.name, model, editorApi));
}
