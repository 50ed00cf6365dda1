/**
 * A chat model of the running VS Code (the Language Model API, `vscode.lm`)
 * as a model client of the llm agent (docs/models.md). The engine never
 * imports `vscode`: the editor passes the model and the API's constructors in
 * through the interfaces below (client/src/ui/languageModels.ts binds them),
 * and a unit test passes fakes.
 *
 * What the API does not have is made up for here: there is no system role, so
 * the system prompt is the first user message; it reports no token usage, so
 * input and output are counted with the model's own `countTokens`; options
 * such as the output limit are passed as `modelOptions`, which the model's
 * vendor may ignore.
 */
import { CancelledError } from '../../errors';
import type { ConversationMessage, ModelClient, ModelReply, ModelRequest, ToolRequest } from './conversation';
import { ModelRequestError } from './modelErrors';

/** An opaque message or content part made by the editor's constructors. */
export type EditorPart = object;

export interface EditorToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface EditorRequestOptions {
  tools: EditorToolInfo[];
  modelOptions: Record<string, unknown>;
  justification: string;
}

/** The part of `vscode.LanguageModelChat` the client uses. */
export interface EditorChatModel {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  sendRequest(
    messages: EditorPart[],
    options: EditorRequestOptions,
    token: unknown,
  ): PromiseLike<{ stream: AsyncIterable<unknown> }>;
  countTokens(text: string, token?: unknown): PromiseLike<number>;
}

/** The API's constructors and part tests, bound to `vscode` by the editor. */
export interface EditorLanguageModelApi {
  userMessage(parts: EditorPart[]): EditorPart;
  assistantMessage(parts: EditorPart[]): EditorPart;
  textPart(text: string): EditorPart;
  toolCallPart(callId: string, name: string, input: object): EditorPart;
  toolResultPart(callId: string, text: string): EditorPart;
  /** The text of a text part of a response stream, else undefined. */
  textOf(part: unknown): string | undefined;
  /** The call of a tool-call part of a response stream, else undefined. */
  toolCallOf(part: unknown): { callId: string; name: string; input: object } | undefined;
  /** A cancellation token that fires with the signal; dispose() when the request is over. */
  cancellation(signal: AbortSignal): { token: unknown; dispose(): void };
  /** The API's error code (`NoPermissions`, `Blocked`, `NotFound`, ...) when err is one of its errors. */
  errorCode(err: unknown): string | undefined;
}

const JUSTIFICATION = 'HUD Studio runs this model as the agent of an evaluation task you started.';

export class EditorModelClient implements ModelClient {
  constructor(
    private readonly name: string,
    private readonly model: EditorChatModel,
    private readonly api: EditorLanguageModelApi,
  ) {}

  async complete(req: ModelRequest): Promise<ModelReply> {
    const messages = [
      this.api.userMessage([this.api.textPart(req.system)]),
      ...req.messages.map((m) => this.toEditor(m)),
    ];
    const options: EditorRequestOptions = {
      tools: req.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })),
      modelOptions: {
        maxTokens: req.maxOutputTokens,
        ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
      },
      justification: JUSTIFICATION,
    };
    const cancel = this.api.cancellation(req.signal);
    let text = '';
    const toolCalls: ToolRequest[] = [];
    try {
      const response = await this.model.sendRequest(messages, options, cancel.token);
      for await (const part of response.stream) {
        const chunk = this.api.textOf(part);
        if (chunk !== undefined) text += chunk;
        const call = this.api.toolCallOf(part);
        if (call) toolCalls.push({ id: call.callId, name: call.name, rawArguments: JSON.stringify(call.input) });
      }
    } catch (err) {
      if (req.signal.aborted) throw new CancelledError('model request');
      throw this.failure(err);
    } finally {
      cancel.dispose();
    }
    const usage = {
      input: await this.count([req.system, ...req.messages.map(messageText)].join('\n')),
      output: await this.count([text, ...toolCalls.map((c) => `${c.name} ${c.rawArguments}`)].join('\n')),
      cached: 0,
    };
    return { text, toolCalls, usage, stopReason: toolCalls.length ? 'tool_calls' : 'stop' };
  }

  private toEditor(m: ConversationMessage): EditorPart {
    const api = this.api;
    switch (m.role) {
      case 'user':
        return api.userMessage([api.textPart(m.text)]);
      case 'assistant':
        return api.assistantMessage([
          ...(m.text ? [api.textPart(m.text)] : []),
          ...m.toolCalls.map((c) => api.toolCallPart(c.id, c.name, parseInput(c.rawArguments))),
        ]);
      case 'tool':
        // The API carries tool results in a user message.
        return api.userMessage(m.results.map((r) => api.toolResultPart(r.id, r.content)));
    }
  }

  private async count(text: string): Promise<number> {
    try {
      return await this.model.countTokens(text);
    } catch {
      return 0; // a count is a figure for the views, never a reason to fail the step
    }
  }

  private failure(err: unknown): ModelRequestError {
    const code = this.api.errorCode(err);
    const message = err instanceof Error ? err.message : String(err);
    const why =
      code === 'NoPermissions'
        ? `VS Code did not allow HUD Studio to use this model (${message}); allow it when VS Code asks`
        : code === 'NotFound'
          ? `VS Code no longer offers this model (${message})`
          : code === 'Blocked'
            ? `VS Code blocked the request (${message}), e.g. for a quota`
            : message;
    return new ModelRequestError(this.name, undefined, why, err);
  }
}

/** A malformed call the model made earlier goes back as an empty input: the loop already told the model. */
function parseInput(raw: string): object {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function messageText(m: ConversationMessage): string {
  if (m.role === 'user') return m.text;
  if (m.role === 'assistant') return [m.text, ...m.toolCalls.map((c) => `${c.name} ${c.rawArguments}`)].join('\n');
  return m.results.map((r) => r.content).join('\n');
}
