/**
 * Harbor's reference agent (docs/harbor.md, "Oracle"): copies the task's
 * solution/ to /solution, makes solve.sh executable and runs it directly (its
 * shebang decides the interpreter) in the environment's workdir, with
 * DEBIAN_FRONTEND=noninteractive and [solution.env]. Its stdout and stderr,
 * merged, become /logs/agent/oracle.txt. A sane task scores it 1.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Agent, AgentContext } from '../agents/agent';
import { AgentError } from '../agents/command';
import { throwIfAborted } from '../errors';
import { clipMiddle, STEP_OUTPUT_CHARS } from '../output/clip';
import { streamLines } from '../output/streamLines';

export const ORACLE_LOG = 'oracle.txt';

/** The solution exited non-zero; Harbor records the code in agent/exit-code.txt. */
export class OracleExitError extends AgentError {
  constructor(
    message: string,
    hint: string,
    readonly exitCode: number,
  ) {
    super(message, hint);
  }
}

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
      throw new AgentError(
        `${join(this.solutionDir, 'solve.sh')} does not exist`,
        'the oracle agent runs solution/solve.sh: add it to the task',
      );
    }
    await ctx.workspace.exec(['rm', '-rf', '/solution'], { user: 'root', signal: ctx.signal });
    await ctx.workspace.copyIn(this.solutionDir, '/solution');
    await ctx.workspace.exec(['chmod', '+x', '/solution/solve.sh'], { user: 'root', signal: ctx.signal });
    const merged: string[] = [];
    const output = streamLines((stream, line) => ctx.log('agent', stream === 'stderr' ? `[stderr] ${line}` : line));
    // "$0" lets sh run a script without a shebang, as Harbor's shell does.
    const res = await ctx.workspace.exec(['/bin/sh', '-c', '"$0"', '/solution/solve.sh'], {
      cwd: ctx.workspace.workdir,
      env: { DEBIAN_FRONTEND: 'noninteractive', ...this.env },
      signal: ctx.signal,
      onOutput: (stream, text) => {
        merged.push(text);
        output.onOutput(stream, text);
      },
    });
    output.end();
    await this.keepLog(ctx, merged.join(''));
    throwIfAborted(ctx.signal, 'oracle');
    const call = {
      name: 'shell',
      input: '/solution/solve.sh',
      output: {
        exitCode: res.exitCode,
        stdout: clipMiddle(res.stdout, STEP_OUTPUT_CHARS),
        stderr: clipMiddle(res.stderr, STEP_OUTPUT_CHARS),
      },
    };
    ctx.step(undefined, [{ ...call, ...(res.exitCode !== 0 ? { isError: true } : {}) }]);
    if (res.exitCode !== 0) {
      const tail = res.stderr.trim().split('\n').slice(-3).join('\n');
      throw new OracleExitError(
        `solution/solve.sh exited with code ${res.exitCode}${tail ? `: ${tail}` : ''}`,
        'fix the solution script; the verifier still ran on what it left behind',
        res.exitCode ?? -1,
      );
    }
    return res.stdout.trim();
  }

  /** /logs/agent/oracle.txt in the container, as Harbor leaves it. */
  private async keepLog(ctx: AgentContext, text: string): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), 'hud-studio-oracle-'));
    try {
      writeFileSync(join(dir, ORACLE_LOG), text);
      await ctx.workspace.copyIn(join(dir, ORACLE_LOG), '/logs/agent');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
