/**
 * Answers the first yield with the answer a stored rollout recorded, so the
 * grading side runs again without the agent (docs/grader-workbench.md).
 */
import type { Agent, AgentContext } from '../agents/agent';

export class ReplayAgent implements Agent {
  readonly kind = 'regrade';
  constructor(
    readonly answer: unknown,
    private readonly of: string,
    /** What stands in for the agent's work, for the trace and the live log. */
    private readonly what = 'the recorded answer',
  ) {}
  describe(): string {
    return `regrade: ${this.what} of ${this.of.slice(0, 8)}`;
  }
  async run(ctx: AgentContext): Promise<unknown> {
    ctx.step('answered with the recorded answer');
    return this.answer;
  }
}
