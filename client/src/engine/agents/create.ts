/** Builds the agent the CLI (or a setting) names. */
import { CLI_AGENT_LIST } from './kinds';
import { UsageError } from '../errors';
import type { Agent } from './agent';
import { CommandAgent } from './command';
import { FixedAgent } from './fixed';
import { DEFAULT_LLM_SETTINGS, LlmAgent, type LlmSettings } from './llm/llmAgent';
import { resolveModel } from './llm/modelRef';
import { NopAgent } from './nop';

export type AgentKind = 'fixed' | 'command' | 'nop' | 'llm';

export interface AgentChoice {
  agent?: string | undefined;
  answer?: string | undefined;
  command?: string | undefined;
  /** `PROVIDER/MODEL` of the llm agent. */
  model?: string | undefined;
  baseUrl?: string | undefined;
  /** Where model keys and HUD_GATEWAY_URL are read (never copied anywhere else). */
  modelEnv?: Readonly<Record<string, string | undefined>> | undefined;
  llm?: Partial<LlmSettings> | undefined;
  /** Harbor's oracle: the folder holding the solve.sh to run instead of the task's solution/ (golden solutions). */
  solution?: string | undefined;
}

/** `--agent` defaults to fixed with --answer, command with --command, llm with --model, else nop. */
export function createAgent(choice: AgentChoice): Agent {
  const kind =
    choice.agent ??
    (choice.answer !== undefined
      ? 'fixed'
      : choice.command !== undefined
        ? 'command'
        : choice.model !== undefined
          ? 'llm'
          : 'nop');
  switch (kind) {
    case 'fixed':
      if (choice.answer === undefined)
        throw new UsageError('the fixed agent has no answer', { fix: { kind: 'agent-answer' } });
      return new FixedAgent(choice.answer);
    case 'command':
      if (!choice.command) throw new UsageError('the command agent has no command', { fix: { kind: 'agent-command' } });
      return new CommandAgent(choice.command);
    case 'nop':
      return new NopAgent();
    case 'llm': {
      if (!choice.model)
        throw new UsageError('--agent llm needs --model PROVIDER/MODEL', { hint: 'e.g. --model openai/gpt-4.1-mini' });
      const endpoint = resolveModel(choice.model, {
        env: choice.modelEnv ?? {},
        ...(choice.baseUrl ? { baseUrl: choice.baseUrl } : {}),
      });
      return new LlmAgent(endpoint, { ...DEFAULT_LLM_SETTINGS, ...choice.llm });
    }
    case 'oracle':
      throw new UsageError("the oracle agent runs a Harbor task's solution/solve.sh; an env.py task has no oracle", {
        hint: 'use fixed (--answer TEXT), command (--command CMD) or nop',
      });
    default:
      throw new UsageError(`unknown agent "${kind}"`, { hint: `use ${CLI_AGENT_LIST}` });
  }
}
