/**
 * A pids cgroup for the agent of a local-runtime rollout whose engine runs as
 * root (docs/security.md, "Exhaustion"). The kernel does not apply
 * RLIMIT_NPROC (agentLimits.ts) to root's processes, in any user namespace,
 * but it does apply a cgroup's pids.max: each rollout's agent gets a cgroup of
 * its own with pids.max = AGENT_PROCESS_LIMIT, every agent command joins it
 * before it runs, and the engine's own processes (server, verifier, its
 * commands) stay outside. At the end of the agent's turn, and at the
 * substrate's release, whatever is left in it is stopped, then killed, and
 * the cgroup is removed.
 *
 * Where it lives:
 * - cgroup v2 (a `cgroup2` mount whose cgroup.controllers lists `pids`):
 *   `<mount>/hud-studio/<owner>.<rollout>`, with `pids` enabled in the
 *   mount root's and in hud-studio's cgroup.subtree_control (a cgroup v2 with
 *   processes of its own cannot hand controllers down, so not under the
 *   engine's own cgroup);
 * - cgroup v1 (`<root>/pids`, as on hybrid hosts): under the engine's own
 *   pids cgroup (/proc/self/cgroup), `<own>/hud-studio/<owner>.<rollout>`,
 *   so that a limit above the engine still counts the agent.
 * `<owner>` is the engine's pid: a later engine removes the empty cgroups of
 * one that died without cleaning up.
 */
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { AGENT_PROCESS_LIMIT } from './agentLimits';
import { processAlive } from './localOwner';
import { procStat } from './processGroup';

export const CGROUP_FS = '/sys/fs/cgroup';
const FOLDER = 'hud-studio';

/** Where agents' cgroups can be made, or why none can. */
export type PidsCgroupPlace = { version: 1 | 2; parent: string } | { version: null; why: string };

/**
 * Decides where the agents' cgroups go, from the cgroup file system at
 * `fsRoot` and this process's /proc/self/cgroup text; nothing is written.
 */
export function pidsCgroupPlace(fsRoot: string, selfCgroup: string): PidsCgroupPlace {
  for (const mount of [fsRoot, join(fsRoot, 'unified')]) {
    const controllers = readText(join(mount, 'cgroup.controllers'));
    if (controllers === undefined) continue;
    if (!controllers.split(/\s+/).includes('pids')) continue;
    if (!writable(mount)) return { version: null, why: `${mount} is not writable` };
    return { version: 2, parent: join(mount, FOLDER) };
  }
  const v1 = join(fsRoot, 'pids');
  if (existsSync(join(v1, 'cgroup.procs'))) {
    const own = /^\d+:([^:]*,)?pids(,[^:]*)?:(.*)$/m.exec(selfCgroup)?.[3] ?? '/';
    const base = join(v1, own);
    if (!existsSync(join(base, 'cgroup.procs'))) return { version: null, why: `${base} is not this process's cgroup` };
    if (!writable(base)) return { version: null, why: `${base} is not writable` };
    return { version: 1, parent: join(base, FOLDER) };
  }
  return { version: null, why: `no pids controller under ${fsRoot}` };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Adds `+pids` to a v2 cgroup's subtree_control unless it is there already. */
function enablePids(dir: string): void {
  const on = readText(join(dir, 'cgroup.subtree_control')) ?? '';
  if (!on.split(/\s+/).includes('pids')) writeFileSync(join(dir, 'cgroup.subtree_control'), '+pids');
}

/** The pids of a cgroup's processes (empty once it is empty or gone). */
function members(dir: string): number[] {
  return (readText(join(dir, 'cgroup.procs')) ?? '')
    .split('\n')
    .filter((l) => /^\d+$/.test(l))
    .map(Number);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // exited meanwhile
  }
}

/** The parents already swept by this process. */
const swept = new Set<string>();

/** Removes the empty cgroups of engines that no longer run. */
function sweepOrphans(parent: string): void {
  if (swept.has(parent)) return;
  swept.add(parent);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = /^(\d+)\./.exec(name)?.[1];
    if (!owner || Number(owner) === process.pid || processAlive(Number(owner))) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // still has processes, or not a cgroup of ours
    }
  }
}

/** Removes the shared parent once no rollout has a cgroup in it (another may be making one: it retries). */
function removeIfEmpty(parent: string): void {
  try {
    rmdirSync(parent);
  } catch {
    // another rollout's cgroup is in it
  }
}

/** One rollout agent's pids cgroup. */
export class AgentCgroup {
  private removed: Promise<void> | undefined;

  private constructor(readonly dir: string) {}

  /**
   * Makes the cgroup for rollout `rolloutId` under `place`, with pids.max =
   * AGENT_PROCESS_LIMIT. Throws when it cannot (the caller then runs without).
   */
  static create(place: { version: 1 | 2; parent: string }, rolloutId: string): AgentCgroup {
    if (place.version === 2) enablePids(join(place.parent, '..'));
    const dir = join(place.parent, `${process.pid}.${rolloutId.replace(/[^\w-]/g, '_')}`);
    for (let attempt = 0; ; attempt++) {
      mkdirSync(place.parent, { recursive: true });
      if (place.version === 2) enablePids(place.parent);
      sweepOrphans(place.parent);
      try {
        mkdirSync(dir);
        break;
      } catch (err) {
        // The last rollout to end removes the shared parent: it may have gone between the two mkdirs.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 3) throw err;
      }
    }
    const cgroup = new AgentCgroup(dir);
    try {
      writeFileSync(join(dir, 'pids.max'), String(AGENT_PROCESS_LIMIT));
    } catch (err) {
      rmdirSync(dir);
      removeIfEmpty(place.parent);
      throw err;
    }
    return cgroup;
  }

  /**
   * `argv` started by /bin/sh, which first moves itself into the cgroup and
   * then runs argv in its own place: nothing it starts can be born outside.
   * If the move fails, argv does not run (exit 126).
   */
  launch(argv: string[]): string[] {
    const script =
      'echo $$ > "$1" || { echo "[hud-studio] cannot join the agent\'s pids cgroup $1" >&2; exit 126; }; shift; exec "$@"';
    return ['/bin/sh', '-c', script, 'hud-studio-agent', join(this.dir, 'cgroup.procs'), ...argv];
  }

  /**
   * Stops every process left in the cgroup (SIGSTOP until none runs, so that
   * a fork bomb cannot refill the places its killed processes free), kills
   * them, and removes the cgroup, retrying while the kernel still counts the
   * dying. Never rejects: resolves with false when the cgroup is still there
   * after `timeoutMs` (and a little more for the kills).
   */
  remove(timeoutMs = 10_000): Promise<boolean> {
    const done = (this.removed ??= this.stopAndRemove(timeoutMs).then(() => undefined));
    return done.then(() => !existsSync(this.dir));
  }

  private async stopAndRemove(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const kill = join(this.dir, 'cgroup.kill');
    if (existsSync(kill)) {
      try {
        writeFileSync(kill, '1');
      } catch {
        // an older kernel: signals below
      }
    }
    for (;;) {
      const left = members(this.dir);
      if (left.length === 0) {
        try {
          rmdirSync(this.dir);
          removeIfEmpty(join(this.dir, '..'));
          return;
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') return;
          if (code !== 'EBUSY' || Date.now() >= deadline) return;
        }
      } else {
        // Freeze first: once none of them runs, none can fork into a place a kill frees. One waiting in the kernel
        // (D: a vfork parent whose child was stopped before its exec) stops only when the wait ends, which may be
        // never: its SIGSTOP stays pending and it is not waited for.
        let running = 0;
        for (const pid of left) {
          const state = procStat(pid)?.state;
          if (state === undefined || state === 'Z' || state === 'T' || state === 't') continue;
          if (state !== 'D') running++;
          signal(pid, 'SIGSTOP');
        }
        if (running === 0 || Date.now() >= deadline) for (const pid of left) signal(pid, 'SIGKILL');
        if (Date.now() >= deadline + 2_000) return;
      }
      await delay(left.length > 0 ? 5 : 25);
    }
  }
}
