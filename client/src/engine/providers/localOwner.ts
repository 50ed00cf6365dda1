/**
 * Local substrates survive their owner if it dies without releasing them
 * (killed terminal, crashed editor). Each substrate's folder records its
 * owner (host + pid) and the process groups it started; the next Local
 * rollout on this machine removes folders whose owner is gone, stops their
 * groups and then any process still working in the folder, and never
 * touches another live process's substrates.
 */
import { readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, sep } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { groupAlive, killGroup, procStat } from './processGroup';

export const OWNER_FILE = 'owner.json';
const SUBSTRATE_DIR = /^hud-studio-.+-(actor|verifier)-[A-Za-z0-9]{6}$/;

interface OwnerRecord {
  host: string;
  pid: number;
  groups: number[];
}

export function writeOwner(root: string, groups: number[]): void {
  const record: OwnerRecord = { host: hostname(), pid: process.pid, groups };
  writeFileSync(join(root, OWNER_FILE), JSON.stringify(record));
}

function readOwner(root: string): OwnerRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(join(root, OWNER_FILE), 'utf8')) as Partial<OwnerRecord>;
    if (typeof r.host !== 'string' || typeof r.pid !== 'number' || !Array.isArray(r.groups)) return undefined;
    return { host: r.host, pid: r.pid, groups: r.groups.filter((g): g is number => typeof g === 'number') };
  } catch {
    return undefined;
  }
}

/** Whether a process with that pid runs (one of another user's counts: EPERM). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface RootProcess {
  pid: number;
  pgid: number;
}

/**
 * Running processes (not zombies) that name `root` on their command line or
 * work inside it. The folder's name is mkdtemp's, so no other process has
 * either; in a sandbox, bubblewrap's own processes name it.
 */
function processesOf(root: string): RootProcess[] {
  if (process.platform !== 'linux') return [];
  const found: RootProcess[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(name);
    if (!stat || stat.state === 'Z') continue;
    if (namesRoot(name, root) || worksIn(name, root)) found.push({ pid: stat.pid, pgid: stat.pgid });
  }
  return found;
}

function namesRoot(pid: string, root: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(root);
  } catch {
    return false; // exited while we looked
  }
}

/** Read apart from the command line: a process that is not ours to inspect (not dumpable) still shows that. */
function worksIn(pid: string, root: string): boolean {
  try {
    const cwd = readlinkSync(`/proc/${pid}/cwd`);
    return cwd === root || cwd.startsWith(root + sep);
  } catch {
    return false;
  }
}

/** True when a member of the group still runs something from `root` (guards against a reused pgid). */
function groupUsesRoot(pgid: number, root: string): boolean {
  if (process.platform !== 'linux') return true;
  return processesOf(root).some((p) => p.pgid === pgid);
}

/**
 * Kills what still works in `root` once its recorded groups are stopped: a
 * process the owner started just before it died, before it could record the
 * group, is in none of them (a CLI killed as its agent started left its
 * sandbox behind this way). The owner is gone, so there is no teardown to
 * wait for. Resolves when none is left, or after about two seconds.
 */
async function stopStragglers(root: string): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    const left = processesOf(root);
    if (left.length === 0) return;
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await delay(50);
  }
}

/** Removes substrates under `tempRoot` whose owner process on this host is gone. Returns the folders removed. */
export async function sweepOrphans(tempRoot: string): Promise<string[]> {
  let names: string[];
  try {
    names = readdirSync(tempRoot).filter((n) => SUBSTRATE_DIR.test(n));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const root = join(tempRoot, name);
    const owner = readOwner(root);
    if (!owner || owner.host !== hostname() || owner.pid === process.pid || processAlive(owner.pid)) continue;
    await Promise.all(
      owner.groups.filter((g) => groupAlive(g) && groupUsesRoot(g, root)).map((g) => killGroup(g, 2_000)),
    );
    await stopStragglers(root);
    rmSync(root, { recursive: true, force: true });
    removed.push(root);
  }
  return removed;
}
