/** Does nothing and answers "" (a sane task scores it 0). */
import type { Agent, AgentContext } from './agent';

export class NopAgent implements Agent {
  readonly kind = 'nop';
  describe(): string {
    return 'nop';
  }
  async run(ctx: AgentContext): Promise<unknown> {
    ctx.step('did nothing');
    return '';
  }
}
