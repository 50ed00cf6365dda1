/** Answers with a value given up front (`--answer TEXT`). */
import type { Agent, AgentContext } from './agent';

export class FixedAgent implements Agent {
  readonly kind = 'fixed';
  constructor(readonly answer: unknown) {}
  describe(): string {
    const text = typeof this.answer === 'string' ? this.answer : JSON.stringify(this.answer);
    return `fixed: ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
  }
  async run(ctx: AgentContext): Promise<unknown> {
    ctx.step('answered with the fixed answer');
    return this.answer;
  }
}
