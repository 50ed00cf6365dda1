/** Builds the agent the CLI (or a setting) names. */
import { CLI_AGENT_LIST } from './kinds';
import { UsageError } from '../errors';
import type { Agent } from './agent';
import { CommandAgent } from './command';
import { FixedAgent } from './fixed';
import { NopAgent } from './nop';

export type AgentKind = 'fixed' | 'command' | 'nop';

export interface AgentChoice {
  agent?: string | undefined;
  answer?: string | undefined;
  command?: string | undefined;
}

/** `--agent` defaults to fixed with --answer, command with --command, else nop. */
export function createAgent(choice: AgentChoice): Agent {
  const kind = choice.agent ?? (choice.answer !== undefined ? 'fixed' : choice.command !== undefined ? 'command' : 'nop');
  switch (kind) {
    case 'fixed':
      if (choice.answer === undefined) throw new UsageError('the fixed agent has no answer', { fix: { kind: 'agent-answer' } });
      return new FixedAgent(choice.answer);
    case 'command':
      if (!choice.command) throw new UsageError('the command agent has no command', { fix: { kind: 'agent-command' } });
      return new CommandAgent(choice.command);
    case 'nop':
      return new NopAgent();
    case 'oracle':
      throw new UsageError('the oracle agent runs a Harbor task\'s solution/solve.sh; an env.py task has no oracle', {
        hint: 'use fixed (--answer TEXT), command (--command CMD) or nop',
      });
    default:
      throw new UsageError(`unknown agent "${kind}"`, { hint: `use ${CLI_AGENT_LIST}` });
  }
}
