/** Anthropic Messages. */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { CancelledError } from '../../errors';
import type { ClientPolicy } from './clientOptions';
import type { ConversationMessage, ModelClient, ModelReply, ModelRequest, ToolSpec } from './conversation';
import { isUserAbort, toModelError } from './modelErrors';
import type { ModelEndpoint } from './modelRef';

export class AnthropicMessagesClient implements ModelClient {
  private readonly sdk: Anthropic;

  constructor(
    private readonly endpoint: ModelEndpoint,
    policy: ClientPolicy,
  ) {
    this.sdk = new Anthropic({
      apiKey: endpoint.apiKey() ?? null,
      authToken: null,
      ...(endpoint.baseURL ? { baseURL: endpoint.baseURL } : {}),
      maxRetries: policy.maxRetries,
      timeout: policy.requestTimeoutMs,
    });
  }

  async complete(req: ModelRequest): Promise<ModelReply> {
    let res: Anthropic.Messages.Message;
    try {
      res = await this.sdk.messages.create(
        {
          model: this.endpoint.model,
          system: req.system,
          messages: req.messages.map(toAnthropic),
          tools: req.tools.map(toTool),
          max_tokens: req.maxOutputTokens,
          ...(req.temperature === undefined ? {} : { temperature: req.temperature }),
        },
        { signal: req.signal },
      );
    } catch (err) {
      if (isUserAbort(err) || req.signal.aborted) throw new CancelledError('model request');
      throw toModelError(this.endpoint.name, err);
    }
    if (!Array.isArray(res.content))
      throw toModelError(this.endpoint.name, new Error('the reply has no content array'));
    const text = res.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    const toolCalls = res.content.flatMap((b) =>
      b.type === 'tool_use' ? [{ id: b.id, name: b.name, rawArguments: JSON.stringify(b.input ?? {}) }] : [],
    );
    const u = res.usage;
    const cached = u?.cache_read_input_tokens ?? 0;
    const input = (u?.input_tokens ?? 0) + cached + (u?.cache_creation_input_tokens ?? 0);
    return {
      text,
      toolCalls,
      usage: { input, output: u?.output_tokens ?? 0, cached },
      stopReason: res.stop_reason ?? 'unknown',
    };
  }
}

function toTool(t: ToolSpec): Tool {
  return { name: t.name, description: t.description, input_schema: { type: 'object', ...t.parameters } };
}

function toAnthropic(m: ConversationMessage): MessageParam {
  switch (m.role) {
    case 'user':
      return { role: 'user', content: m.text };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(m.text ? [{ type: 'text' as const, text: m.text }] : []),
          ...m.toolCalls.map((c) => ({
            type: 'tool_use' as const,
            id: c.id,
            name: c.name,
            input: parseOrEmpty(c.rawArguments),
          })),
        ],
      };
    case 'tool':
      return {
        role: 'user',
        content: m.results.map((r) => ({
          type: 'tool_result' as const,
          tool_use_id: r.id,
          content: r.content,
          is_error: r.isError,
        })),
      };
  }
}

function parseOrEmpty(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
