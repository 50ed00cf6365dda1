/**
 * Harbor's reference agent: copies the task's solution/ to /solution and runs
 * solve.sh in the environment's workdir. A sane task scores it 1.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent, AgentContext } from '../agents/agent';
import { AgentError } from '../agents/command';
import { throwIfAborted } from '../errors';
import { clipMiddle, STEP_OUTPUT_CHARS } from '../output/clip';
import { streamLines } from '../output/streamLines';

export class OracleAgent implements Agent {
  readonly kind = 'oracle';
  constructor(
    private readonly solutionDir: string,
    private readonly env: Record<string, string> = {},
  ) {}

  describe(): string {
    return 'oracle: solution/solve.sh';
  }

  async run(ctx: AgentContext): Promise<unknown> {
    if (!existsSync(join(this.solutionDir, 'solve.sh'))) {
      throw new AgentError(`${join(this.solutionDir, 'solve.sh')} does not exist`, 'the oracle agent runs solution/solve.sh: add it to the task');
    }
    await ctx.workspace.exec(['rm', '-rf', '/solution'], { user: 'root', signal: ctx.signal });
    await ctx.workspace.copyIn(this.solutionDir, '/solution');
    const output = streamLines((stream, line) => ctx.log('agent', stream === 'stderr' ? `[stderr] ${line}` : line));
    const res = await ctx.workspace.exec(['bash', '/solution/solve.sh'], {
      cwd: ctx.workspace.workdir,
      env: this.env,
      signal: ctx.signal,
      onOutput: (stream, text) => output.onOutput(stream, text),
    });
    output.end();
    throwIfAborted(ctx.signal, 'oracle');
    const call = { name: 'shell', input: 'bash /solution/solve.sh', output: { exitCode: res.exitCode, stdout: clipMiddle(res.stdout, STEP_OUTPUT_CHARS), stderr: clipMiddle(res.stderr, STEP_OUTPUT_CHARS) } };
    ctx.step(undefined, [{ ...call, ...(res.exitCode !== 0 ? { isError: true } : {}) }]);
    if (res.exitCode !== 0) {
      const tail = res.stderr.trim().split('\n').slice(-3).join('\n');
      throw new AgentError(`solution/solve.sh exited with code ${res.exitCode}${tail ? `: ${tail}` : ''}`, 'fix the solution script; the verifier still ran on what it left behind');
    }
    return res.stdout.trim();
  }
}
