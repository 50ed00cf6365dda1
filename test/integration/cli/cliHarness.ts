/** Runs the CLI in-process with captured output, or as a real `node` process from source. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { CliIO } from '../../../client/src/cli/io';
import { main } from '../../../client/src/cli/main';

export const REPO_ROOT = join(__dirname, '..', '..', '..');

export async function cli(argv: string[], cwd = REPO_ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    cwd,
    env: process.env,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** `node --import tsx client/src/cli.ts ARGS` (the dev entry; dist/cli.js is the same code bundled), `env` added. */
export function spawnCli(argv: string[], cwd = REPO_ROOT, env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'client', 'src', 'cli.ts'), ...argv], {
    cwd,
    env: { ...process.env, FORCE_COLOR: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function exitOf(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (t: string) => (stdout += t));
  child.stderr?.setEncoding('utf8').on('data', (t: string) => (stderr += t));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
