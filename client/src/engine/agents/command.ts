/**
 * Runs a shell command in the actor substrate's work folder; its trimmed
 * stdout is the answer. The prompt arrives both in HUD_PROMPT and on stdin,
 * so one-liners and scripts can each use what suits them.
 */
import { HudStudioError, throwIfAborted } from '../errors';
import type { Agent, AgentContext } from './agent';
import { clipMiddle, STEP_OUTPUT_CHARS } from '../output/clip';
import { streamLines } from '../output/streamLines';

export class AgentError extends HudStudioError {
  constructor(message: string, hint?: string) {
    super('agent', message, hint ? { hint } : {});
  }
}

export class CommandAgent implements Agent {
  readonly kind = 'command';
  constructor(readonly command: string) {}

  describe(): string {
    return `command: ${this.command}`;
  }

  async run(ctx: AgentContext): Promise<unknown> {
    const output = streamLines((stream, line) => ctx.log('agent', stream === 'stderr' ? `[stderr] ${line}` : line));
    const res = await ctx.workspace.exec(['/bin/sh', '-c', this.command], {
      cwd: ctx.workspace.workdir,
      env: { HUD_PROMPT: ctx.promptText },
      stdin: ctx.promptText,
      signal: ctx.signal,
      ...(ctx.timeoutMs ? { timeoutMs: ctx.timeoutMs } : {}),
      onOutput: (stream, text) => output.onOutput(stream, text),
    });
    output.end();
    throwIfAborted(ctx.signal, 'agent command');
    const call = {
      name: 'shell',
      input: this.command,
      output: {
        exitCode: res.exitCode,
        stdout: clipMiddle(res.stdout, STEP_OUTPUT_CHARS),
        stderr: clipMiddle(res.stderr, STEP_OUTPUT_CHARS),
      },
    };
    if (res.exitCode !== 0) {
      ctx.step(undefined, [{ ...call, isError: true }]);
      const why = res.timedOut
        ? 'timed out'
        : res.exitCode === null
          ? 'was killed'
          : `exited with code ${res.exitCode}`;
      const tail = res.stderr.trim().split('\n').slice(-3).join('\n');
      throw new AgentError(
        `agent command \`${this.command}\` ${why}${tail ? `: ${tail}` : ''}`,
        'the command must exit 0 and print the answer on stdout',
      );
    }
    ctx.step(undefined, [call]);
    return res.stdout.trim();
  }
}
