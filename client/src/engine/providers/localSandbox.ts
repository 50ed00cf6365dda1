/**
 * The local runtime's sandboxes (docs/security.md), made with bubblewrap when
 * the machine has it. Both kinds get their own user, PID, IPC and UTS
 * namespaces, the system folders read-only, a private /tmp and /proc, and of
 * the host's files only what they are given; the CLI's processes (and their
 * variables) are invisible, and when the sandbox's init goes the kernel kills
 * everything left in its PID namespace, however it detached.
 *
 * - An agent command also loses the network, and sees only its workspace
 *   (read-write).
 * - The environment's server (and the engine's other commands in its
 *   substrate: discovery, the gateway relay) keeps the host's network, which
 *   the control channel needs, and sees its interpreter read-only and its
 *   private copy of the environment, HOME and TMPDIR read-write.
 *
 * Without bubblewrap both run as the user's plain processes, and the engine
 * says so on every run.
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

/** True when `path` is `dir` or inside it. */
export function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
}

/** The system folders, read-only (merged-/usr systems: /bin is a link into /usr, which is bound already). */
function systemView(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    const st = lstatSync(dir);
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  return args;
}

/** True when a system folder (bound already) holds `path`. */
export function inSystemView(path: string): boolean {
  return SYSTEM_DIRS.some((dir) => isWithin(path, dir));
}

/**
 * bwrap's arguments for an agent command working in `workspace` (bound
 * read-write), up to and including `--`. No `--new-session`: the command is
 * spawned as the leader of a session of its own already (execInGroup), which
 * has no controlling terminal to inject keystrokes into, and bwrap's own
 * setsid would take the sandbox's init out of that process group, so that
 * stopping the group would no longer wait for the PID namespace to empty
 * (docs/security.md). `readable`: folders the engine's own command in the
 * agent's view needs besides (an interpreter, the source of a copy into the workspace), read-only.
 */
export function sandboxArgs(workspace: string, cwd: string, readable: readonly string[] = []): string[] {
  return [
    '--die-with-parent',
    '--unshare-all',
    '--unshare-user',
    '--cap-drop',
    'ALL',
    ...systemView(),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    ...readable.filter((dir) => !inSystemView(dir)).flatMap((dir) => ['--ro-bind', dir, dir]),
    '--bind',
    workspace,
    workspace,
    '--chdir',
    cwd,
    '--',
  ];
}

export interface ServerView {
  /** Folders the server may write (its copy of the environment, HOME, TMPDIR), at the same paths. */
  writable: string[];
  /** Folders it may read besides the system ones (its interpreter, the bundled runtime), at the same paths. */
  readable: string[];
  cwd: string;
}

/**
 * bwrap's arguments for the environment's server or another engine command
 * in its substrate, up to and including `--`. No new session: the server
 * stays in the engine's process group, so SIGTERM reaches it for its teardown
 * (stopSandbox in sandboxStop.ts).
 */
export function serverSandboxArgs(view: ServerView): string[] {
  const args = ['--die-with-parent', '--unshare-all', '--unshare-user', '--share-net', '--cap-drop', 'ALL'];
  args.push(...systemView(), '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  // After /tmp's tmpfs, so that what lives under /tmp stays visible; writable folders last, over read-only ones.
  for (const dir of view.readable) if (!inSystemView(dir)) args.push('--ro-bind', dir, dir);
  for (const dir of view.writable) args.push('--bind', dir, dir);
  args.push('--chdir', view.cwd, '--');
  return args;
}
