/**
 * What a CLI command may touch: its output streams, working folder and
 * environment. Commands take it as a parameter, so tests run them in-process
 * with captured output.
 */
export interface CliStream {
  write(text: string): unknown;
  /** True on a terminal: progress bars and colours are only for people. */
  isTTY?: boolean;
  columns?: number;
}

export interface CliIO {
  stdout: CliStream;
  stderr: CliStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
}

/** Exit codes of every command. */
export const EXIT = { ok: 0, error: 1, usage: 2, cancelled: 130 } as const;
