/**
 * The `llm` agent: a model in the actor's seat (docs/models.md). Each model
 * reply is one step: its text, its tool calls with their inputs and outputs,
 * and its token usage, reported as it completes. A malformed tool call is a
 * failed step that the model is told about; only `submit` ends the episode.
 */
import { isMcpProtocol } from '../../capabilityProtocols';
import { CancelledError, HudStudioError, throwIfAborted } from '../../errors';
import type { Agent, AgentContext, AgentToolCall } from '../agent';
import { AgentError } from '../command';
import { AnthropicMessagesClient } from './anthropicClient';
import { DEFAULT_CLIENT_POLICY, type ClientPolicy } from './clientOptions';
import {
  ZERO_USAGE,
  addUsage,
  type ConversationMessage,
  type ModelClient,
  type ToolRequest,
  type ToolResult,
  type TokenUsage,
} from './conversation';
import type { ModelEndpoint } from './modelRef';
import { OpenAiChatClient } from './openaiClient';
import { systemPrompt } from './systemPrompt';
import {
  DEFAULT_TOOL_LIMITS,
  NO_EXTRA_TOOLS,
  SUBMIT_TOOL,
  ToolInputError,
  ToolRunner,
  type ExtraTools,
  type ToolLimits,
} from './tools';
import { chooseShell } from './workspaceShell';

export interface LlmSettings {
  /** Appended to the default system prompt. */
  system?: string;
  maxSteps: number;
  maxOutputTokens: number;
  temperature?: number;
  /** Input + output tokens over the whole episode; the run stops (agent error) once it is spent. */
  tokenBudget?: number;
  policy: ClientPolicy;
  tools: ToolLimits;
}

export const DEFAULT_LLM_SETTINGS: LlmSettings = {
  maxSteps: 30,
  maxOutputTokens: 4096,
  policy: DEFAULT_CLIENT_POLICY,
  tools: DEFAULT_TOOL_LIMITS,
};

export function clientFor(endpoint: ModelEndpoint, policy: ClientPolicy): ModelClient {
  if (endpoint.api === 'vscode-lm') {
    // The editor hands its own client in (EditorModelClient): the engine cannot reach VS Code's models.
    throw new HudStudioError(
      'agent',
      `${endpoint.name} is a model of the running VS Code: only the editor can call it`,
    );
  }
  return endpoint.api === 'anthropic'
    ? new AnthropicMessagesClient(endpoint, policy)
    : new OpenAiChatClient(endpoint, policy);
}

export class LlmAgent implements Agent {
  readonly kind = 'llm';
  // Private (#): the library's client holds the key, and neither JSON nor util.inspect may reach it.
  readonly #client: ModelClient;

  constructor(
    readonly endpoint: ModelEndpoint,
    readonly settings: LlmSettings = DEFAULT_LLM_SETTINGS,
    /** A client the caller made (the editor's for VS Code's own models); else one for the endpoint's API. */
    client?: ModelClient,
  ) {
    this.#client = client ?? clientFor(endpoint, settings.policy);
  }

  toJSON(): Record<string, unknown> {
    return { kind: this.kind, model: this.endpoint.name };
  }

  describe(): string {
    return `llm: ${this.endpoint.name}`;
  }

  async run(ctx: AgentContext): Promise<unknown> {
    const shell = await chooseShell(ctx.workspace, ctx.signal);
    let mcp: ExtraTools = NO_EXTRA_TOOLS;
    try {
      // Which capability the tools used is part of the record (docs/models.md): another path is another run.
      ctx.log('agent', `bash and editor act through ${shell.via}`);
      const ws = ctx.workspace;
      if (ws.openTunnel && ws.bindings.some((b) => isMcpProtocol(b.protocol))) {
        // Loaded only when an environment serves MCP: the SDK is a large part of the engine bundle.
        const { McpToolset } = await import('./mcpTools');
        const toolset = await McpToolset.connect(ws, ctx.signal);
        mcp = toolset;
        for (const m of toolset.via) ctx.log('agent', `MCP tools from ${m}`);
      }
      return await this.episode(ctx, new ToolRunner(shell, this.settings.tools, ctx.signal, mcp));
    } finally {
      await Promise.allSettled([shell.close(), mcp.close()]);
    }
  }

  private async episode(ctx: AgentContext, tools: ToolRunner): Promise<unknown> {
    const s = this.settings;
    const messages: ConversationMessage[] = [{ role: 'user', text: ctx.promptText }];
    const system = systemPrompt(s.system);
    let total: TokenUsage = ZERO_USAGE;
    const summary = (): string => `tokens in ${total.input} (cached ${total.cached}), out ${total.output}`;
    for (let step = 1; step <= s.maxSteps; step++) {
      throwIfAborted(ctx.signal, 'llm agent');
      if (s.tokenBudget !== undefined && total.input + total.output >= s.tokenBudget) {
        throw new AgentError(
          `the token budget of ${s.tokenBudget} is spent after ${step - 1} steps (${summary()})`,
          'raise --token-budget',
        );
      }
      const reply = await this.#client.complete({
        system,
        messages,
        tools: tools.specs,
        maxOutputTokens: s.maxOutputTokens,
        ...(s.temperature === undefined ? {} : { temperature: s.temperature }),
        signal: ctx.signal,
      });
      total = addUsage(total, reply.usage);
      if (reply.text) ctx.log('agent', `${this.endpoint.name}: ${reply.text}`);
      messages.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls });
      if (!reply.toolCalls.length) {
        const why =
          reply.stopReason === 'max_tokens' || reply.stopReason === 'length'
            ? 'the reply was cut at max tokens'
            : 'no tool was called';
        messages.push({ role: 'user', text: `${why}: call a tool, or submit(answer) to finish.` });
        ctx.step(reply.text || undefined, [{ name: '(none)', output: why, isError: true }], reply.usage);
        continue;
      }
      const { results, calls, answer } = await this.runCalls(reply.toolCalls, tools, ctx);
      ctx.step(reply.text || undefined, calls, reply.usage);
      if (answer !== undefined) {
        ctx.log('agent', `submitted after ${step} step${step === 1 ? '' : 's'}; ${summary()}`);
        return answer;
      }
      messages.push({ role: 'tool', results });
    }
    throw new AgentError(
      `the model did not submit within ${s.maxSteps} steps (${summary()})`,
      'raise --max-steps, or check the prompt',
    );
  }

  private async runCalls(
    requests: ToolRequest[],
    tools: ToolRunner,
    ctx: AgentContext,
  ): Promise<{ results: ToolResult[]; calls: AgentToolCall[]; answer: unknown }> {
    const results: ToolResult[] = [];
    const calls: AgentToolCall[] = [];
    for (const req of requests) {
      const parsed = parseArguments(req.rawArguments);
      const input = parsed.ok ? parsed.value : req.rawArguments;
      let content: string;
      let isError: boolean;
      try {
        if (!parsed.ok)
          throw new ToolInputError(`the arguments are not a JSON object (${parsed.why}); send valid JSON`);
        if (req.name === SUBMIT_TOOL) {
          const answer = parsed.value['answer'];
          if (typeof answer !== 'string') throw new ToolInputError('"answer" must be a string');
          ctx.log('agent', `submit ${JSON.stringify(answer).slice(0, 200)}`);
          calls.push({ name: req.name, input });
          return { results, calls, answer };
        }
        ctx.log('agent', `${req.name} ${JSON.stringify(input).slice(0, 500)}`);
        ({ content, isError } = await tools.run(req.name, parsed.value));
      } catch (err) {
        if (ctx.signal.aborted) throw new CancelledError('llm agent');
        if (!(err instanceof ToolInputError)) throw err;
        content = `error: ${err.message}`;
        isError = true;
      }
      ctx.log('agent', content.length > 2000 ? `${content.slice(0, 2000)}…` : content);
      results.push({ id: req.id, name: req.name, content, isError });
      calls.push({ name: req.name, input, output: content, ...(isError ? { isError } : {}) });
    }
    return { results, calls, answer: undefined };
  }
}

type Parsed = { ok: true; value: Record<string, unknown> } | { ok: false; why: string };

function parseArguments(raw: string): Parsed {
  let v: unknown;
  try {
    v = JSON.parse(raw || '{}');
  } catch (err) {
    return { ok: false, why: (err as Error).message };
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { ok: false, why: 'not an object' };
  return { ok: true, value: v as Record<string, unknown> };
}
