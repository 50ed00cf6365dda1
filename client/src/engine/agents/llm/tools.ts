/**
 * The tools every model gets (docs/models.md): `bash`, `editor` and `submit`,
 * plus the environment's MCP tools. `bash` and `submit` are a contract:
 * environments and prompts may name them. Shell and editor act through the
 * shell `chooseShell` picked (workspaceShell.ts): the environment's ssh/2 or
 * bundled workspace when it publishes one, else the provider's exec in the
 * agent's seat.
 */
import type { ToolSpec } from './conversation';
import { cutMiddle } from './cutOutput';
import type { WorkspaceShell } from './workspaceShell';

export const SUBMIT_TOOL = 'submit';

export interface ToolLimits {
  /** Characters of tool output the model sees (head and tail kept). */
  outputChars: number;
  /** Default and ceiling of one bash call. */
  bashTimeoutMs: number;
}

export const DEFAULT_TOOL_LIMITS: ToolLimits = { outputChars: 16_000, bashTimeoutMs: 120_000 };

export const TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'bash',
    description:
      'Run a shell command in the task workspace (working directory is the workspace root). ' +
      'Returns stdout, stderr and the exit code; long output is cut in the middle.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line, run with bash (or sh when bash is missing).' },
        timeout_seconds: {
          type: 'number',
          description: 'Give up after this many seconds (default and maximum set by the run).',
        },
      },
      required: ['command'],
    },
  },
  {
    name: 'editor',
    description:
      'View and edit text files. view: show a file with line numbers (or list a directory). create: write file_text to a new ' +
      'or existing file. str_replace: replace old_str, which must occur exactly once, with new_str. insert: put new_str after ' +
      'line insert_line (0 = the top). Paths are relative to the workspace root or absolute.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string', enum: ['view', 'create', 'str_replace', 'insert'] },
        path: { type: 'string' },
        file_text: { type: 'string' },
        old_str: { type: 'string' },
        new_str: { type: 'string' },
        insert_line: { type: 'integer', minimum: 0 },
      },
      required: ['command', 'path'],
    },
  },
  {
    name: SUBMIT_TOOL,
    description: 'Finish the task with your final answer. Nothing runs after this call.',
    parameters: {
      type: 'object',
      properties: { answer: { type: 'string', description: 'The final answer, exactly as it should be graded.' } },
      required: ['answer'],
    },
  },
];

/** Tools the environment adds (its MCP servers' tools, mcpTools.ts). */
export interface ExtraTools {
  readonly specs: readonly ToolSpec[];
  has(name: string): boolean;
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export const NO_EXTRA_TOOLS: ExtraTools = {
  specs: [],
  has: () => false,
  call: (name) => Promise.reject(new ToolInputError(`there is no tool "${name}"`)),
  close: async () => undefined,
};

/** A tool call the model got wrong: reported back to it as an error, never thrown out of the loop. */
export class ToolInputError extends Error {}

export interface ToolOutcome {
  content: string;
  isError: boolean;
}

export class ToolRunner {
  constructor(
    private readonly sh: WorkspaceShell,
    private readonly limits: ToolLimits,
    private readonly signal: AbortSignal,
    private readonly mcp: ExtraTools = NO_EXTRA_TOOLS,
  ) {}

  get specs(): readonly ToolSpec[] {
    return [...TOOL_SPECS, ...this.mcp.specs];
  }

  async run(name: string, args: Record<string, unknown>): Promise<ToolOutcome> {
    switch (name) {
      case 'bash':
        return this.bash(requireString(args, 'command'), optionalNumber(args, 'timeout_seconds'));
      case 'editor':
        return this.editor(args);
      default: {
        if (!this.mcp.has(name))
          throw new ToolInputError(`there is no tool "${name}"; use ${this.specs.map((t) => t.name).join(', ')}`);
        const res = await this.mcp.call(name, args, this.signal);
        return { content: cutMiddle(res.content, this.limits.outputChars), isError: res.isError };
      }
    }
  }

  private async bash(command: string, timeoutSec: number | undefined): Promise<ToolOutcome> {
    const ceiling = this.limits.bashTimeoutMs;
    const timeoutMs = timeoutSec && timeoutSec > 0 ? Math.min(timeoutSec * 1000, ceiling) : ceiling;
    const res = await this.shell(BASH_THEN_SH, [command], { timeoutMs });
    const parts: string[] = [];
    if (res.stdout) parts.push(res.stdout.replace(/\n$/, ''));
    if (res.stderr) parts.push(`[stderr]\n${res.stderr.replace(/\n$/, '')}`);
    parts.push(res.timedOut ? `[timed out after ${timeoutMs / 1000} s]` : `[exit code ${res.exitCode ?? 'killed'}]`);
    return { content: cutMiddle(parts.join('\n'), this.limits.outputChars), isError: res.exitCode !== 0 };
  }

  private async editor(args: Record<string, unknown>): Promise<ToolOutcome> {
    const command = requireString(args, 'command');
    const path = requireString(args, 'path');
    switch (command) {
      case 'view': {
        const res = await this.shell('if [ -d "$1" ]; then ls -la -- "$1"; else cat -- "$1"; fi', [path]);
        if (res.exitCode !== 0) return { content: `cannot view ${path}: ${res.stderr.trim()}`, isError: true };
        const numbered = res.stdout
          .replace(/\n$/, '')
          .split('\n')
          .map((line, i) => `${String(i + 1).padStart(6)}\t${line}`)
          .join('\n');
        return { content: cutMiddle(numbered, this.limits.outputChars), isError: false };
      }
      case 'create':
        return this.write(path, requireString(args, 'file_text'), `created ${path}`);
      case 'str_replace': {
        const oldStr = requireString(args, 'old_str');
        const newStr = typeof args['new_str'] === 'string' ? args['new_str'] : '';
        if (!oldStr) throw new ToolInputError('old_str must not be empty');
        const text = await this.read(path);
        const count = text.split(oldStr).length - 1;
        if (count !== 1) {
          const why = count === 0 ? 'does not occur' : `occurs ${count} times`;
          return { content: `old_str ${why} in ${path}; give a string that occurs exactly once`, isError: true };
        }
        return this.write(
          path,
          text.replace(oldStr, () => newStr),
          `replaced one occurrence in ${path}`,
        );
      }
      case 'insert': {
        const at = args['insert_line'];
        if (typeof at !== 'number' || !Number.isInteger(at) || at < 0)
          throw new ToolInputError('insert_line must be an integer >= 0');
        const newStr = requireString(args, 'new_str');
        const lines = (await this.read(path)).split('\n');
        if (at > lines.length)
          return { content: `${path} has ${lines.length} lines; insert_line ${at} is past the end`, isError: true };
        lines.splice(at, 0, ...newStr.replace(/\n$/, '').split('\n'));
        return this.write(path, lines.join('\n'), `inserted after line ${at} of ${path}`);
      }
      default:
        throw new ToolInputError(`editor command must be view, create, str_replace or insert, got "${command}"`);
    }
  }

  private async read(path: string): Promise<string> {
    const res = await this.shell('cat -- "$1"', [path]);
    if (res.exitCode !== 0)
      throw new ToolInputError(`cannot read ${path}: ${res.stderr.trim() || `exit code ${res.exitCode}`}`);
    return res.stdout;
  }

  private async write(path: string, text: string, done: string): Promise<ToolOutcome> {
    const res = await this.shell('mkdir -p -- "$(dirname -- "$1")" && cat > "$1"', [path], { stdin: text });
    if (res.exitCode !== 0) return { content: `cannot write ${path}: ${res.stderr.trim()}`, isError: true };
    return { content: done, isError: false };
  }

  private shell(script: string, args: string[], extra: { stdin?: string; timeoutMs?: number } = {}) {
    return this.sh.run({
      script,
      args,
      signal: this.signal,
      // Without stdin an exec would inherit nothing to read; an empty one ends a command that waits for input.
      stdin: extra.stdin ?? '',
      timeoutMs: extra.timeoutMs ?? this.limits.bashTimeoutMs,
    });
  }
}

/** The model's command runs under bash when the substrate has it, else under sh. */
const BASH_THEN_SH = 'if command -v bash >/dev/null 2>&1; then exec bash -c "$1"; else exec sh -c "$1"; fi';

function requireString(args: Record<string, unknown>, key: string): string {
  const v = args[key];
  if (typeof v !== 'string') throw new ToolInputError(`"${key}" must be a string`);
  return v;
}

function optionalNumber(args: Record<string, unknown>, key: string): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ToolInputError(`"${key}" must be a number`);
  return v;
}
