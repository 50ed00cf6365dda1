/**
 * An agent turns a prompt into an answer, working on the actor substrate.
 * Fixed, command and nop agents live in the engine; the extension adds an
 * interactive one; the llm agent (agents/llm) puts a model in the seat.
 */
import type { Duplex } from 'node:stream';
import type { ExecOptions, ExecResult } from '../providers/provider';
import type { LogStream, TokenUsage } from '../../../../common/trace/schema';

export interface AgentToolCall {
  name: string;
  input?: unknown;
  output?: unknown;
  isError?: boolean;
}

/** The handle an agent gets on the actor substrate: exec and copy, nothing more. */
export interface AgentWorkspace {
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  copyIn(hostPath: string, dest: string): Promise<void>;
  workdir: string;
  /** Capability bindings from `hello` (MCP servers, sshd, ...). */
  bindings: { name: string; protocol: string; url: string; params: Record<string, unknown> }[];
  /**
   * A fresh byte pipe to capability `name`'s daemon through the control port
   * (`tunnel.open`, docs/hud-protocol.md); absent where no environment server
   * publishes capabilities (Harbor tasks).
   */
  openTunnel?(name: string, signal: AbortSignal): Promise<Duplex>;
}

export interface AgentContext {
  /** The prompt frame as sent by the environment (`{"prompt": ...}`). */
  prompt: unknown;
  /** The prompt rendered as text for agents that need a string. */
  promptText: string;
  workspace: AgentWorkspace;
  signal: AbortSignal;
  timeoutMs?: number;
  log(stream: LogStream, text: string): void;
  /** One agent step; a model agent adds the tokens that step used. */
  step(text: string | undefined, toolCalls?: AgentToolCall[], usage?: TokenUsage): void;
}

export interface Agent {
  /** `fixed`, `command`, `nop`, `ask`, `oracle`, ... */
  readonly kind: string;
  /** One line for traces and the UI, e.g. `command: ./solve.sh`. */
  describe(): string;
  /** Returns the answer sent to `tasks.grade`. */
  run(ctx: AgentContext): Promise<unknown>;
}

/** Renders a prompt frame as text (a dict with "prompt" shows that field). */
export function promptToText(prompt: unknown): string {
  if (prompt && typeof prompt === 'object' && 'prompt' in prompt) {
    const p = prompt.prompt;
    return typeof p === 'string' ? p : JSON.stringify(p, null, 2);
  }
  return typeof prompt === 'string' ? prompt : JSON.stringify(prompt, null, 2);
}
