/**
 * The agent's seat in a Docker actor container (docs/security.md): the
 * agent runs as a user of its own that owns the workspace root and nothing
 * else. The server and the channel relay keep the container's user, so the
 * agent cannot read the environment's folder, signal or trace them, write
 * to their descriptors, or take over their ports. When the agent is done,
 * every process of its user is killed, however it detached.
 */
import { randomUUID } from 'node:crypto';
import { imagePathFolders, WORKSPACE_DIR } from '../docker/enginePath';
import { HudStudioError } from '../errors';
import type { DockerContainer } from '../docker/container';
import type { AgentSeat, ExecOptions, ExecResult } from './provider';
import { underAgentLimits } from './agentLimits';
import { AGENT_COPY_HINT, agentCopyWhat } from './agentCopy';
import {
  NOTHING_CHECKED,
  TURN_END_CHECK_SCRIPT,
  turnEndCheckArgs,
  type TurnEndCheck,
  withRootWalk,
} from './turnEndCheck';

export { WORKSPACE_DIR } from '../docker/enginePath';
/**
 * The agents' users: ids no image uses for itself, needing no entry in its
 * passwd. Each seat takes the next one of the range, so agents of concurrent
 * rollouts are different users: the kernel counts the agent's process limit
 * per user across every container of the host (docs/security.md,
 * "Exhaustion"), and one agent's fork bomb must not use up another's.
 */
export const AGENT_UIDS = { first: 61000, count: 1000 } as const;
// Each engine process starts at its own place in the range, so the CLI and the editor seldom pick the same id.
let nextAgentUid = Math.floor(Math.random() * AGENT_UIDS.count);

function takeAgentUid(): number {
  const uid = AGENT_UIDS.first + (nextAgentUid % AGENT_UIDS.count);
  nextAgentUid++;
  return uid;
}
/** An image label through which an environment asks for a root agent (its actor grade is then forgeable). */
export const ROOT_AGENT_LABEL = 'dev.hud-studio.agent-user';

const SETUP_TIMEOUT_MS = 60_000;
/** What preparing the agent's seat needs of the image. */
const TOOLS_HINT = 'the image needs sh, mkdir, chown and chmod (coreutils or busybox)';

/**
 * Run as root before the agent's first command: the workspace root (and
 * whatever the environment prepared there) becomes the agent's, and the
 * environment's folder becomes private to the server's user.
 */
const PREPARE_SCRIPT = [
  'set -e',
  'agent=$1; server=$2; workspace=$3; env=$4',
  'mkdir -p "$workspace"',
  'chown -R "$agent" "$workspace"',
  'chmod 0755 "$workspace"',
  'if [ -n "$server" ]; then chown -R "$server" "$env"; fi',
  'chmod 0700 "$env"',
].join('\n');

/**
 * Run as root, so that nothing of the agent's can signal it: an agent that
 * leaves a process killing its own user's processes in a loop would
 * otherwise kill this script and turn its wrong answer into an engine error
 * (docs/security.md). Root signals only the agent user's processes, each
 * through a pidfd opened before its owner is read, so a number that a
 * process of the server's takes over meanwhile is never signalled. It stops
 * them all first and kills them after: a killed process frees its place
 * under the agent's process limit, which a fork bomb refills at once, while
 * a stopped one holds it and forks no more. Then it kills until none is left
 * alive. Exits 1, naming what is left, when the deadline passes first.
 *
 * Then, in a child that has become the agent's user (its group, no other
 * groups) and works from /, it checks what the agent left for the graders
 * (turnEndCheck.ts): one exec for the turn's end instead of two. No
 * process of the agent's is left to race the check or to trace the child.
 */
const END_SCRIPT = `
import os, signal, sys, time
me = os.getpid()
agent = sys.argv[1]
def owner_and_state(pid):
    with open("/proc/%d/status" % pid) as f:
        fields = dict(line.split(":", 1) for line in f if ":" in line)
    return fields.get("Uid", "").split()[:1], fields.get("State", "").strip()[:1]
def send(pid, sig, skip, uncounted):
    fd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    try:
        uid, state = owner_and_state(pid)
        if uid != [agent] or state in skip:
            return False
        if fd is None:
            os.kill(pid, sig)
        else:
            signal.pidfd_send_signal(fd, sig)
        return state not in uncounted
    finally:
        if fd is not None:
            os.close(fd)
def sweep(sig, skip, uncounted=""):
    hit = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) != me:
            try:
                if send(int(name), sig, skip, uncounted):
                    hit.append(int(name))
            except OSError:
                pass
    return hit
deadline = time.monotonic() + 30
# A process waiting in the kernel (D) does not stop until the wait ends, and the wait may not end before the sweep
# does: a shell's vfork parent waits for a child stopped before its exec. It gets its SIGSTOP, pending, and the
# kill below; it is not waited for here.
while sweep(signal.SIGSTOP, "ZTt", "D") and time.monotonic() < deadline:
    time.sleep(0.01)
while True:
    left = sweep(signal.SIGKILL, "Z")
    if not left:
        break
    if time.monotonic() > deadline:
        # What each survivor is doing (its state, a D is an uninterruptible wait in the kernel; its kernel wait
        # channel; its command), so that a run that ends here says why.
        def seen(pid):
            try:
                with open("/proc/%d/wchan" % pid) as f:
                    wchan = f.read().strip()
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    cmd = f.read(200).replace(b"\\0", b" ").decode(errors="replace").strip()
                return "%d (%s, in %s: %r)" % (pid, owner_and_state(pid)[1], wchan or "-", cmd)
            except OSError:
                return str(pid)
        sys.exit("processes of the agent still alive: %s" % ", ".join(seen(p) for p in left))
    time.sleep(0.01)
pid = os.fork()
if pid == 0:
    os.setgroups([])
    os.setgid(int(agent))
    os.setuid(int(agent))
    os.chdir("/")
    os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", sys.argv[2]] + sys.argv[3:])
_, status = os.waitpid(pid, 0)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
`;

export class DockerAgentSeat implements AgentSeat {
  readonly workdir = WORKSPACE_DIR;
  readonly privileged: boolean;
  readonly privilegedWhy?: string;
  /** The agent's user id in this container (unused by a privileged seat). */
  readonly agentUid = takeAgentUid();
  private readonly agentUser = `${this.agentUid}:${this.agentUid}`;
  private prepared: Promise<void> | undefined;
  private used = false;

  constructor(
    private readonly container: DockerContainer,
    private readonly envDir: string,
    /** The PYTHONPATH the server runs with, when it is the image's (its own SDK serves). */
    private readonly serverPythonPath?: string,
  ) {
    const asked = container.imageLabels[ROOT_AGENT_LABEL];
    this.privileged = asked === 'root' || asked === '0';
    if (this.privileged) {
      this.privilegedWhy = `the image's label ${ROOT_AGENT_LABEL}=${asked} asks for a root agent`;
    }
  }

  async exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    await this.prepare();
    this.used = true;
    const env = { HOME: WORKSPACE_DIR, ...opts.env };
    // The agent never picks its own user: a privileged seat is the container's user, else the agent's.
    const { user: _ignored, ...rest } = opts;
    // A privileged agent is exempt from the limit (root is), and shares the server's user anyway.
    return this.container.exec(this.privileged ? argv : underAgentLimits(argv), {
      ...rest,
      env,
      cwd: opts.cwd ?? WORKSPACE_DIR,
      ...(this.privileged ? {} : { user: this.agentUser }),
    });
  }

  async copyIn(hostPath: string, dest: string): Promise<void> {
    await this.prepare();
    const target = dest.startsWith('/') ? dest : `${WORKSPACE_DIR}/${dest}`;
    if (this.privileged) return this.container.copyIn(hostPath, target);
    // Root unpacks into a folder of its own that nobody else may enter and gives it to the agent's user, who puts
    // it in place: a link the agent left on the way to `target` leads only where the agent itself may write (root
    // unpacking there went through it, and gave what it made to the agent wherever it was).
    const staging = `/tmp/hud-studio-copy-${randomUUID()}`;
    await this.asRoot(['mkdir', '-m', '700', staging], `making a folder to copy ${dest} through`);
    try {
      await this.container.copyIn(hostPath, staging);
      await this.asRoot(['chown', '-R', this.agentUser, staging], `giving the copy for ${dest} to the agent's user`);
      await this.must(['sh', '-c', 'mkdir -p "$1" && cp -a "$0"/. "$1"/', staging, target], {
        what: agentCopyWhat(target),
        // The agent's user may not enter the container's working folder (the environment's, 0700).
        user: this.agentUser,
        cwd: '/',
        hint: AGENT_COPY_HINT,
      });
    } finally {
      await this.container
        .exec(['rm', '-rf', staging], { user: '0', timeoutMs: SETUP_TIMEOUT_MS })
        .catch(() => undefined);
    }
  }

  async end(): Promise<TurnEndCheck> {
    // A privileged agent shares the server's user: killing "its" processes would kill the server too.
    if (!this.used || this.privileged) return NOTHING_CHECKED;
    const res = await this.container.exec(
      [
        'python3',
        '-I',
        '-S',
        '-c',
        END_SCRIPT,
        String(this.agentUid),
        TURN_END_CHECK_SCRIPT,
        // The whole file system: besides its workspace, the agent may write shared folders (/tmp, any opened to it).
        ...turnEndCheckArgs(
          ['/'],
          [...imagePathFolders(this.container.imagePath), ...(this.serverPythonPath?.split(':') ?? [])],
        ),
      ],
      { user: '0', env: this.container.enginePathEnv, timeoutMs: SETUP_TIMEOUT_MS },
    );
    // The check prints a report whatever it finds; without one, the sweep before it failed or time ran out.
    if (!res.stdout.trim())
      throw new HudStudioError(
        'provider',
        `ending the agent's turn (its processes, then its links) failed: ${res.stderr.trim() || (res.timedOut ? `not done within ${SETUP_TIMEOUT_MS / 1000} s` : `exit ${res.exitCode}`)}`,
      );
    return withRootWalk(res, (args) =>
      this.container.exec(['python3', '-I', '-S', '-c', TURN_END_CHECK_SCRIPT, ...args], {
        user: '0',
        env: this.container.enginePathEnv,
        timeoutMs: SETUP_TIMEOUT_MS,
      }),
    );
  }

  private prepare(): Promise<void> {
    this.prepared ??= this.privileged
      ? this.asRoot(['mkdir', '-p', WORKSPACE_DIR], "making the agent's workspace", TOOLS_HINT)
      : this.asRoot(
          [
            'sh',
            '-c',
            PREPARE_SCRIPT,
            'hud-studio-prepare',
            this.agentUser,
            this.container.user,
            WORKSPACE_DIR,
            this.envDir,
          ],
          "preparing the agent's workspace",
          TOOLS_HINT,
        );
    return this.prepared;
  }

  private asRoot(argv: string[], what: string, hint?: string): Promise<void> {
    return this.must(argv, { what, user: '0', ...(hint ? { hint } : {}) });
  }

  /** Runs `argv` as `user` with the engine's PATH; a failure says `what` failed, and why. */
  private async must(
    argv: string[],
    { what, user, cwd, hint }: { what: string; user: string; cwd?: string; hint?: string },
  ): Promise<void> {
    const res = await this.container.exec(argv, {
      user,
      env: this.container.enginePathEnv,
      timeoutMs: SETUP_TIMEOUT_MS,
      ...(cwd ? { cwd } : {}),
    });
    if (res.exitCode !== 0) {
      throw new HudStudioError(
        'provider',
        `${what} failed: ${(res.stderr || res.stdout).trim() || `exit ${res.exitCode}`}`,
        hint ? { hint } : {},
      );
    }
  }
}
