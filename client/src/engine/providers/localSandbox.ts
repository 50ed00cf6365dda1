/**
 * The local runtime's sandbox for agents (docs/security.md): bubblewrap,
 * when the machine has it, runs each agent command in its own user, PID,
 * IPC, UTS and network namespaces, with the system folders read-only, a
 * private /tmp and /proc, and nothing of the host's files but the agent's
 * own workspace. The CLI's processes (and their variables) are invisible;
 * when the command ends, the namespace's init goes and the kernel kills
 * everything left in it, however it detached. Without bubblewrap the agent
 * runs as the user's plain process, and the engine says so on every run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';

const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

let probed: string | undefined | null = null;

/** The bwrap binary when it can make a sandbox on this machine, else undefined (probed once). */
export function bubblewrap(): string | undefined {
  if (probed !== null) return probed;
  const ok = spawnSync(
    'bwrap',
    ['--unshare-all', '--unshare-user', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'],
    {
      stdio: 'ignore',
      timeout: 10_000,
    },
  );
  probed = ok.status === 0 ? 'bwrap' : undefined;
  return probed;
}

/** bwrap's arguments for a command working in `workspace` (bound read-write), up to and including `--`. */
export function sandboxArgs(workspace: string, cwd: string): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all', '--unshare-user', '--cap-drop', 'ALL'];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    const st = lstatSync(dir);
    // Merged-/usr systems: /bin is a link into /usr, which is bound already.
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind',
    workspace,
    workspace,
    '--chdir',
    cwd,
    '--',
  );
  return args;
}
