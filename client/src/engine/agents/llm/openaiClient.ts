/** OpenAI-compatible chat completions (OpenAI, the HUD gateway, vLLM, llama.cpp, Ollama, LM Studio). */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { CancelledError } from '../../errors';
import type { ClientPolicy } from './clientOptions';
import type { ConversationMessage, ModelClient, ModelReply, ModelRequest, ToolSpec } from './conversation';
import { isUserAbort, toModelError } from './modelErrors';
import type { ModelEndpoint } from './modelRef';

export class OpenAiChatClient implements ModelClient {
  private readonly sdk: OpenAI;

  constructor(
    private readonly endpoint: ModelEndpoint,
    policy: ClientPolicy,
  ) {
    this.sdk = new OpenAI({
      // A local server may need no key; the library insists on a string.
      apiKey: endpoint.apiKey() ?? 'no-key',
      ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
      maxRetries: policy.maxRetries,
      timeout: policy.requestTimeoutMs,
      organization: null,
      project: null,
    });
  }

  async complete(req: ModelRequest): Promise<ModelReply> {
    let res: OpenAI.Chat.Completions.ChatCompletion;
    try {
      res = await this.sdk.chat.completions.create(
        {
          model: this.endpoint.model,
          messages: [{ role: 'system', content: req.system }, ...req.messages.flatMap(toOpenAi)],
          tools: req.tools.map(toTool),
          max_completion_tokens: req.maxOutputTokens,
          ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
        },
        { signal: req.signal },
      );
    } catch (err) {
      if (isUserAbort(err) || req.signal.aborted) throw new CancelledError('model request');
      throw toModelError(this.endpoint.name, err);
    }
    const choice = res.choices?.[0];
    if (!choice?.message) throw toModelError(this.endpoint.name, new Error('the reply has no choices[0].message'));
    const msg = choice.message;
    const toolCalls = (msg.tool_calls ?? []).flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, name: c.function.name, rawArguments: c.function.arguments ?? '' }] : [],
    );
    const cached = res.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    return {
      text: typeof msg.content === 'string' ? msg.content : '',
      toolCalls,
      usage: { input: res.usage?.prompt_tokens ?? 0, output: res.usage?.completion_tokens ?? 0, cached },
      stopReason: choice.finish_reason ?? 'unknown',
    };
  }
}

function toTool(t: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } };
}

function toOpenAi(m: ConversationMessage): ChatCompletionMessageParam[] {
  switch (m.role) {
    case 'user':
      return [{ role: 'user', content: m.text }];
    case 'assistant':
      return [
        {
          role: 'assistant',
          content: m.text || null,
          ...(m.toolCalls.length
            ? {
                tool_calls: m.toolCalls.map((c) => ({
                  id: c.id,
                  type: 'function' as const,
                  function: { name: c.name, arguments: c.rawArguments },
                })),
              }
            : {}),
        },
      ];
    case 'tool':
      return m.results.map((r) => ({ role: 'tool' as const, tool_call_id: r.id, content: r.content }));
  }
}
