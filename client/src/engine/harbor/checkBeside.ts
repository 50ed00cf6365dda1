/**
 * The turn-end check of a Harbor image without python3 (docs/security.md, "Links the agent leaves"), run from
 * a container beside the task's: one of the engine's base image, which has a python3 no agent touched. That
 * container joins the task container's processes, and its Python enters the task's file system through
 * `/proc/1/root` (the task container's first process, so with its mounts) before it runs the same check script.
 *
 * Nothing of the task's is run. The launcher imports what the script imports from its own image first, and
 * then looks no module up anywhere, so a module the agent left where this interpreter's would be is never
 * read. The agent's walk runs with the user and groups the task container gave an exec of the agent's (read
 * from its `/proc/self/status`), so "could the agent read it" is still asked of the kernel; root's walk of
 * what that walk could not list runs there as well.
 *
 * It needs the task container in a process namespace of its own (a container that shares the host's, or
 * another's, would put someone else's files at `/proc/1/root`) and the base image; without either, or when
 * the kernel refuses the way in, the check is not made and the caller marks the reward forgeable.
 */
import { dockerClient } from '../docker/client';
import { createContainer } from '../docker/container';
import { dockerMessage } from '../docker/errors';
import { ensureImage } from '../docker/pull';
import type { ManagedContainer } from '../docker/types';
import { errorMessage } from '../errors';
import { DEFAULT_IMAGE } from '../providers/docker';
import type { ExecResult } from '../providers/provider';
import {
  TURN_END_CHECK_SCRIPT,
  TURN_END_CHECK_TIMEOUT_MS,
  type TurnEndCheck,
  withRootWalk,
} from '../providers/turnEndCheck';

/** The agent's user and groups, as the task container gave them to an exec of the agent's. */
export interface AgentIdentity {
  uid: number;
  gid: number;
  groups: number[];
}

/** What the check beside found, or why it could not be made. */
export type BesideCheck = { check: TurnEndCheck } | { unchecked: string };

const CANNOT_ENTER = 86;

/**
 * argv: the check script, the user, group and groups (comma-separated) to take, then the script's arguments.
 * The modules the script imports come from this image, and so does what sysconfig and site read on first use;
 * `PRELOADED` tells the script which modules the interpreter had before that.
 */
const LAUNCHER = `
import sys
startup = set(sys.modules)
import ast, importlib.machinery, os, site, sysconfig
script, uid, gid, groups = sys.argv[1:5]
for node in ast.walk(ast.parse(script)):
    if isinstance(node, ast.Import):
        for alias in node.names:
            __import__(alias.name)
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        __import__(node.module)
sysconfig.get_paths()
site.getsitepackages()
try:
    # The task container's first process: its root, and its mounts. Docker makes /.dockerenv in every container.
    if not os.path.exists("/proc/1/root/.dockerenv"):
        raise OSError("/proc/1/root is not a container's file system")
    os.chroot("/proc/1/root")
    os.chdir("/")
except OSError as err:
    print("the task container's file system could not be entered: %s" % err, file=sys.stderr)
    sys.exit(${CANNOT_ENTER})
# From here on a module would be looked up in the task's files, where the agent may have put one: none is.
sys.path[:] = []
sys.meta_path[:] = [f for f in sys.meta_path if f in (importlib.machinery.BuiltinImporter, importlib.machinery.FrozenImporter)]
if uid != "0":
    os.setgroups([int(g) for g in groups.split(",") if g])
    os.setgid(int(gid))
    os.setuid(int(uid))
sys.argv = ["-c"] + sys.argv[5:]
exec(compile(script, "<turn-end check>", "exec"), {"__name__": "__main__", "PRELOADED": startup})
`;

/** The agent's identity from the `Uid:`, `Gid:` and `Groups:` lines of its `/proc/self/status`. */
export function agentIdentityOf(status: string): AgentIdentity | undefined {
  const field = (name: string) => new RegExp(`^${name}:[ \\t]*([^\\n]*)$`, 'm').exec(status)?.[1]?.trim();
  const ids = (s: string | undefined) => (s ? s.split(/\s+/).map(Number) : []);
  const [uid] = ids(field('Uid'));
  const [gid] = ids(field('Gid'));
  const groups = ids(field('Groups'));
  const valid = (n: number | undefined): n is number => n !== undefined && Number.isInteger(n) && n >= 0;
  if (!valid(uid) || !valid(gid) || !groups.every(valid)) return undefined;
  return { uid, gid, groups };
}

/** Runs the check script over `args` from beside `main`, as `agent`, then root's walk of what it could not list. */
export async function checkBeside(
  main: ManagedContainer,
  agent: AgentIdentity,
  args: readonly string[],
  rolloutId: string,
): Promise<BesideCheck> {
  const unchecked = (why: string): BesideCheck => ({ unchecked: why });
  let pidMode: string | undefined;
  try {
    pidMode = (await dockerClient().getContainer(main.id).inspect()).HostConfig.PidMode;
  } catch (err) {
    return unchecked(`the task container could not be inspected: ${dockerMessage(err)}`);
  }
  if (pidMode && pidMode !== 'private')
    return unchecked(`the task container shares the processes of ${pidMode === 'host' ? 'the host' : pidMode}`);
  let checker: ManagedContainer;
  try {
    await ensureImage(DEFAULT_IMAGE);
    checker = await createContainer({
      image: DEFAULT_IMAGE,
      rolloutId,
      phase: 'check',
      network: 'none',
      user: '0',
      processesOf: main.id,
      // /proc/1/root is another container's process's: reading it is a ptrace-mode access.
      capAdd: ['SYS_PTRACE'],
    });
  } catch (err) {
    return unchecked(`a container of ${DEFAULT_IMAGE} to check from could not start: ${errorMessage(err)}`);
  }
  try {
    const run = (ids: readonly [string, string, string], scriptArgs: readonly string[]): Promise<ExecResult> =>
      checker.exec(['python3', '-I', '-S', '-c', LAUNCHER, TURN_END_CHECK_SCRIPT, ...ids, ...scriptArgs], {
        user: '0',
        cwd: '/',
        // The whole file system, not a workspace.
        timeoutMs: 2 * TURN_END_CHECK_TIMEOUT_MS,
      });
    const res = await run([String(agent.uid), String(agent.gid), agent.groups.join(',')], args);
    if (res.exitCode === CANNOT_ENTER)
      return unchecked(res.stderr.trim() || "the task container's file system could not be entered");
    return { check: await withRootWalk(res, (rootArgs) => run(['0', '0', ''], rootArgs)) };
  } finally {
    await checker.remove();
  }
}
