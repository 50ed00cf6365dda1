/**
 * The conversation in a provider-neutral shape. Each model client maps it to
 * its API's messages, so the loop never depends on one vendor's format.
 */

import type { TokenUsage } from '../../../../../common/trace/schema';

export type { TokenUsage };

export interface ToolRequest {
  id: string;
  name: string;
  /** As the model sent it: may be malformed JSON, which the loop reports back. */
  rawArguments: string;
}

export interface ToolResult {
  id: string;
  name: string;
  content: string;
  isError: boolean;
}

export type ConversationMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolRequest[] }
  | { role: 'tool'; results: ToolResult[] };

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ToolSpec[];
  maxOutputTokens: number;
  temperature?: number;
  signal: AbortSignal;
}

export interface ModelReply {
  text: string;
  toolCalls: ToolRequest[];
  usage: TokenUsage;
  /** The API's stop reason as sent (`stop`, `tool_calls`, `end_turn`, `max_tokens`, ...). */
  stopReason: string;
}

export interface ModelClient {
  complete(request: ModelRequest): Promise<ModelReply>;
}

export const ZERO_USAGE: TokenUsage = { input: 0, output: 0, cached: 0 };

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return { input: a.input + b.input, output: a.output + b.output, cached: a.cached + b.cached };
}
