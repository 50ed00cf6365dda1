/**
 * Local substrates survive their owner if it dies without releasing them
 * (killed terminal, crashed editor). Each substrate's folder records its
 * owner (host + pid) and the process groups it started; the next Local
 * rollout on this machine removes folders whose owner is gone and stops
 * their groups, and never touches another live process's substrates.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { groupAlive, killGroup } from './processGroup';

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

/** True when a member of the group still runs something from `root` (guards against a reused pgid). */
function groupUsesRoot(pgid: number, root: string): boolean {
  if (process.platform !== 'linux') return true;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmdline.includes(root)) return true;
    } catch {
      // exited while we looked
    }
  }
  return false;
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
    rmSync(root, { recursive: true, force: true });
    removed.push(root);
  }
  return removed;
}
