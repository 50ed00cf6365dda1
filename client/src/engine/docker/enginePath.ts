/**
 * Where the engine's own commands in a container look programs up. An image
 * may put a folder of the agent's workspace on its PATH (a project's
 * `/workspace/.venv/bin`, `node_modules/.bin`); after the agent's turn began,
 * a `python3` there may be the agent's. The engine's execs run as root or as
 * the server's user (the end-of-turn sweep, channel relays), so they look
 * programs up on the image's PATH without any folder the agent can write
 * (docs/security.md). The agent's own commands keep the image's PATH.
 */
import { posix } from 'node:path';
import { atOrBelow } from '../../../../common/containerPath';

/** The agent's working folder in a Docker actor container (the workspace root), owned by the agent's user. */
export const WORKSPACE_DIR = '/workspace';

/** Folders the agent's user can write: its workspace and the world-writable temporary folders. */
const AGENT_WRITABLE = [WORKSPACE_DIR, '/tmp', '/var/tmp', '/dev/shm'];

/** The value of `name` an image's environment sets, if any (for PATH, Docker's default applies otherwise). */
export function imageEnvOf(env: readonly string[] | undefined | null, name = 'PATH'): string | undefined {
  return env?.find((e) => e.startsWith(`${name}=`))?.slice(name.length + 1);
}

/** Docker's PATH in a container of an image that sets none: the system's own folders. */
export const DOCKER_DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The folders where the image's processes (the server, its graders) look programs up, as written: an empty
 * entry is the working folder, as a relative one names a folder under it.
 */
export function imagePathFolders(imagePath: string | undefined): string[] {
  return (imagePath ?? DOCKER_DEFAULT_PATH).split(':');
}

// `/usr/../workspace/bin` is the workspace's: folders are compared once normalised, or a program the agent
// planted there would pass for the system's.
const trimmed = (d: string): string => {
  const n = d.startsWith('/') ? posix.normalize(d) : d;
  return n.length > 1 ? n.replace(/\/+$/, '') : n;
};

/** Whether the normalised absolute folder lies in the agent's workspace or a shared temporary folder. */
const agentWrites = (d: string): boolean => AGENT_WRITABLE.some((root) => atOrBelow(d, root));

/** `imagePath` without relative entries and folders the agent can write. */
export function enginePath(imagePath: string): string {
  return imagePath
    .split(':')
    .map(trimmed)
    .filter((d) => d.startsWith('/') && !agentWrites(d))
    .join(':');
}

/**
 * The folders of `folders` that lie in the agent's workspace or a shared temporary folder of the Docker seat,
 * normalised, and the relative entries ("" too) as written: they name a folder under whichever one a grader
 * runs in, the workspace for one that runs there.
 */
export function agentWritableFolders(folders: readonly string[]): string[] {
  return folders.map(trimmed).filter((d) => !d.startsWith('/') || agentWrites(d));
}
