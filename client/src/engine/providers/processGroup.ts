/**
 * Child processes that lead their own process group, so that everything they
 * start can be stopped together: SIGTERM to the group (teardown gets to run),
 * then SIGKILL after a grace period.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import type { ResultPromise } from 'execa';
import { loadExeca } from '../execa';
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
  const members = groupMembers(pgid);
  return members === undefined || members.some((m) => m.state !== 'Z');
}

export interface GroupMember {
  pid: number;
  ppid: number;
  /** The kernel's one-letter state (`Z` for a zombie). */
  state: string;
}

export interface ProcStat extends GroupMember {
  pgid: number;
}

/** A process's state, parent and group as `/proc/<pid>/stat` gives them, or undefined once it is gone. */
export function procStat(pid: number | string): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited while we looked
  }
  // "pid (comm) state ppid pgrp ..."; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid: Number(pid), state: fields[0] ?? '', ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

/** The processes of group `pgid` as /proc shows them, or undefined when /proc cannot be read. */
export function groupMembers(pgid: number): GroupMember[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const members: GroupMember[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(name);
    if (stat?.pgid === pgid) members.push({ pid: stat.pid, ppid: stat.ppid, state: stat.state });
  }
  return members;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
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

export async function waitGroupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    // Nothing signals that a group emptied (its members need not be our children): poll /proc.
    await delay(25);
  }
  return true;
}

interface LeaderOptions {
  cwd: string;
  env: Record<string, string>;
  extendEnv: false;
  detached: true;
  cleanup: false;
  stdin: 'pipe' | 'ignore';
  buffer: false;
  reject: false;
}

/** A child process that execa started (a ChildProcess that is also a promise of its result). */
export type GroupLeader = ResultPromise<LeaderOptions>;

/**
 * Starts argv as the leader of a new process group, with exactly `env` (no
 * inherited variables). Its output is streamed, not buffered: the caller
 * reads it. Resolves once spawned; a missing program surfaces as the
 * child's 'error' event, as with node's spawn.
 */
export async function spawnGroupLeader(
  argv: string[],
  opts: { cwd: string; env: Record<string, string>; stdin?: boolean },
): Promise<{ child: GroupLeader }> {
  const [cmd, ...args] = argv;
  if (!cmd) throw new Error('empty command');
  const { execa } = await loadExeca();
  const options: LeaderOptions = {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: false,
    detached: true,
    // The group is ours to end (killGroup at release); execa must not kill only its leader.
    cleanup: false,
    stdin: opts.stdin ? 'pipe' : 'ignore',
    buffer: false,
    reject: false,
  };
  const child = execa(cmd, args, options);
  // Wrapped: the subprocess is itself a promise, which an async function would wait for.
  return { child };
}

/**
 * Runs argv to completion in its own group, capturing output. A timeout or an
 * abort kills the whole group (SIGTERM, then SIGKILL after `graceMs`) and
 * resolves with `exitCode: null`; a program that cannot start resolves with
 * 127 and the reason in `stderr`.
 */
export async function execInGroup(
  argv: string[],
  opts: ExecOptions & { cwd: string; env: Record<string, string>; onGroup?: (pgid: number) => void; graceMs?: number },
): Promise<ExecResult> {
  const [cmd, ...args] = argv;
  if (!cmd) return { exitCode: 127, stdout: '', stderr: 'empty command', timedOut: false };
  const { execa } = await loadExeca();
  const child = execa(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    reject: false,
    stripFinalNewline: false,
    // Collected below, keeping each stream's tail: a flood must not fill memory (docs/reliability.md).
    buffer: false,
    ...(opts.stdin !== undefined ? { input: opts.stdin } : { stdin: 'ignore' as const }),
  });
  let timedOut = false;
  let killed = false;
  const pgid = child.pid;
  if (pgid !== undefined) opts.onGroup?.(pgid);

  const kill = (): void => {
    if (killed || pgid === undefined) return;
    killed = true;
    void killGroup(pgid, opts.graceMs ?? 1_000);
  };
  const timer =
    opts.timeoutMs && opts.timeoutMs > 0 ? setTimeout(() => ((timedOut = true), kill()), opts.timeoutMs) : undefined;
  opts.signal?.addEventListener('abort', kill, { once: true });
  if (opts.signal?.aborted) kill();
  const out = new TailCapture();
  const err = new TailCapture();
  child.stdout?.on('data', (b: Buffer) => {
    const t = out.write(b);
    if (t) opts.onOutput?.('stdout', t);
  });
  child.stderr?.on('data', (b: Buffer) => {
    const t = err.write(b);
    if (t) opts.onOutput?.('stderr', t);
  });
  // A background child may keep the pipes open after the leader exits: give it a moment, then stop waiting.
  let exitCode: number | null = null;
  child.once('exit', (code, signal) => {
    exitCode = signal ? null : code;
    setTimeout(() => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, 300).unref();
  });
  try {
    const r = await child;
    for (const [stream, capture] of [
      ['stdout', out],
      ['stderr', err],
    ] as const) {
      const rest = capture.end();
      if (rest) opts.onOutput?.(stream, rest);
    }
    if (r.code === 'ENOENT' || r.code === 'EACCES') {
      return { exitCode: 127, stdout: '', stderr: r.originalMessage ?? r.shortMessage ?? '', timedOut: false };
    }
    return {
      exitCode: killed ? null : (exitCode ?? r.exitCode ?? null),
      stdout: out.text(),
      stderr: err.text(),
      timedOut,
    };
  } finally {
    if (timer) clearTimeout(timer);
    opts.signal?.removeEventListener('abort', kill);
  }
}
