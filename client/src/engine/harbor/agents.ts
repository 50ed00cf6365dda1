/** The agents a Harbor trial can run: oracle plus the engine's own (nop, command, fixed). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent } from '../agents/agent';
import { createAgent, type AgentChoice } from '../agents/create';
import type { HarborTask } from '../../../../common/harbor';
import { OracleAgent } from './oracleAgent';

export type HarborAgentChoice = AgentChoice & { agent?: string };

/**
 * `--agent oracle` runs the task's solution (a step's own solution/ when it
 * has one, as Harbor does); anything else is the engine's agent of that name.
 */
export function createHarborAgent(choice: HarborAgentChoice, task: HarborTask, step?: string): Agent {
  if (choice.agent === 'oracle') {
    if (choice.solution !== undefined) return new OracleAgent(choice.solution, task.config.solution.env);
    const own = step !== undefined ? join(task.dir, 'steps', step, 'solution') : undefined;
    return new OracleAgent(own && existsSync(own) ? own : join(task.dir, 'solution'), task.config.solution.env);
  }
  return createAgent(choice);
}
