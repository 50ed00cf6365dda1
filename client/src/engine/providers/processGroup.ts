/**
 * Child processes that lead their own process group, so that everything they
 * start can be stopped together: SIGTERM to the group (teardown gets to run),
 * then SIGKILL after a grace period.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { TailCapture } from '../output/tailCapture';
import type { ExecOptions, ExecResult } from './provider';

export const DEFAULT_KILL_GRACE_MS = 5_000;

/** True while any process of group `pgid` is still running (zombies waiting to be reaped do not count). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return process.platform === 'linux' ? hasRunningMember(pgid) : true;
}

/**
 * A killed grandchild whose parent died first is reparented to PID 1 and can
 * stay a zombie for a while; it is dead, so waiting for it only slows
 * release down. /proc tells the two apart on Linux.
 */
function hasRunningMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') return true;
  }
  return false;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * SIGTERM the group, wait for it to empty (up to `graceMs`), then SIGKILL
 * and wait again briefly so callers can rely on the group being gone.
 */
export async function killGroup(pgid: number, graceMs = DEFAULT_KILL_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return;
  signalGroup(pgid, 'SIGTERM');
  if (await waitGroupGone(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await waitGroupGone(pgid, 2_000);
}

async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
  return true;
}

export function spawnGroupLeader(argv: string[], opts: { cwd: string; env: Record<string, string>; stdin?: boolean }): ChildProcess {
  const [cmd, ...args] = argv;
  if (!cmd) throw new Error('empty command');
  return spawn(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs argv to completion in its own group, capturing output. A timeout or an
 * abort kills the whole group and resolves with `exitCode: null`.
 */
export function execInGroup(
  argv: string[],
  opts: ExecOptions & { cwd: string; env: Record<string, string>; onGroup?: (pgid: number) => void; graceMs?: number },
): Promise<ExecResult> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawnGroupLeader(argv, { cwd: opts.cwd, env: opts.env, stdin: opts.stdin !== undefined });
    } catch (err) {
      resolve({ exitCode: 127, stdout: '', stderr: (err as Error).message, timedOut: false });
      return;
    }
    // The result keeps each stream's tail; onOutput sees everything (a flood must not fill memory).
    const out = new TailCapture();
    const err = new TailCapture();
    let timedOut = false;
    let killed = false;
    let finished = false;
    const pgid = child.pid;
    if (pgid !== undefined) opts.onGroup?.(pgid);

    const kill = (): void => {
      if (killed || pgid === undefined) return;
      killed = true;
      void killGroup(pgid, opts.graceMs ?? 1_000);
    };
    const timer = opts.timeoutMs && opts.timeoutMs > 0 ? setTimeout(() => ((timedOut = true), kill()), opts.timeoutMs) : undefined;
    const onAbort = (): void => kill();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) kill();

    child.stdout?.setEncoding('utf8').on('data', (t: string) => {
      out.write(t);
      opts.onOutput?.('stdout', t);
    });
    child.stderr?.setEncoding('utf8').on('data', (t: string) => {
      err.write(t);
      opts.onOutput?.('stderr', t);
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined); // a command that never reads stdin closes the pipe early
      child.stdin.end(opts.stdin);
    }

    const finish = (code: number | null, spawnError?: Error): void => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (spawnError) err.write(spawnError.message);
      resolve({ exitCode: killed ? null : code, stdout: out.text(), stderr: err.text(), timedOut });
    };
    child.on('error', (e) => finish(127, e));
    child.on('exit', (code, signal) => {
      // Background children may keep the pipes open: give them a moment, then stop waiting.
      const late = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish(signal ? null : code);
      }, 300);
      child.once('close', () => (clearTimeout(late), finish(signal ? null : code)));
    });
  });
}
