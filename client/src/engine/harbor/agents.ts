/** The agents a Harbor trial can run: oracle plus the engine's own (nop, command, fixed). */
import { join } from 'node:path';
import type { Agent } from '../agents/agent';
import { createAgent, type AgentChoice } from '../agents/create';
import type { HarborTask } from '../../../../server/src/harbor';
import { OracleAgent } from './oracleAgent';

export type HarborAgentChoice = AgentChoice & { agent?: string };

/** `--agent oracle` runs the task's solution; anything else is the engine's agent of that name. */
export function createHarborAgent(choice: HarborAgentChoice, task: HarborTask): Agent {
  if (choice.agent === 'oracle') return new OracleAgent(join(task.dir, 'solution'), task.config.solution.env);
  return createAgent(choice);
}
