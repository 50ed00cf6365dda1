/**
 * Local provider: the environment's server as a subprocess on the host, for
 * machines without Docker (docs/hud-protocol.md): a private temporary copy of
 * the environment's folder, a scrubbed environment, and its own process group
 * that release() kills. Where bubblewrap works, the server, the engine's
 * commands and the agent's each run in a sandbox (localSandbox.ts,
 * docs/security.md); without it they share the host's filesystem, and the
 * engine says on every run that this is no security boundary.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { connectTcp } from '../channel/tcp';
import { CancelledError, HudStudioError } from '../errors';
import { runtimePythonDir } from '../runtimePaths';
import type { ServingSdk, SubstrateInfo } from '../../../../common/trace/schema';
import { sweepOrphans, writeOwner } from './localOwner';
import { DEFAULT_KILL_GRACE_MS, execInGroup, killGroup, spawnGroupLeader, type GroupLeader } from './processGroup';
import { bubblewrap, sandboxArgs, serverSandboxArgs } from './localSandbox';
import { underAgentLimits } from './agentLimits';
import { AgentCgroup, CGROUP_FS, pidsCgroupPlace } from './agentCgroup';
import { scopedArgv } from './sandboxScope';
import { sandboxPython, type SandboxPython } from './sandboxPython';
import { stopSandbox } from './sandboxStop';
import {
  AGENT_WORKSPACE_ENV,
  type AcquireOptions,
  type AgentSeat,
  type EnvironmentSpec,
  type ExecOptions,
  type ExecResult,
  type Provider,
  type ServeOptions,
  type Substrate,
} from './provider';
import { scrubbedEnv } from './scrubbedEnv';
import { imageServeArgv, serveArgv, waitForServePort } from './serveProcess';
import { BUNDLED_SDK, decideSdk, parseSdkProbe, probeOnce, sdkChoiceOf, SDK_PROBE_SCRIPT } from './servingSdk';
import { withheldFrom } from './verifierOnly';
import {
  TURN_END_CHECK_SCRIPT,
  TURN_END_CHECK_TIMEOUT_MS,
  turnEndCheckOf,
  NOTHING_CHECKED,
  type TurnEndCheck,
} from './turnEndCheck';
import { isSkippedDirName } from './copySkips';
import { AGENT_COPY_TIMEOUT_MS, agentCopyArgv, agentCopyFailed } from './agentCopy';

export interface LocalProviderOptions {
  /** Where substrates' private folders go (default: the OS temp folder). */
  tempRoot?: string;
  /** Variables of the host process to scrub from (default process.env). */
  parentEnv?: NodeJS.ProcessEnv;
  killGraceMs?: number;
  /** false: no bubblewrap sandbox even where the machine has one (what a machine without it does). */
  sandbox?: boolean;
}

/** How a substrate's sandbox is made: bwrap, and the interpreter its server runs. */
interface LocalSandbox {
  bwrap: string;
  python: SandboxPython;
}

/** Temp folders already swept by this process (once is enough: later orphans are other processes' business). */
const swept = new Set<string>();

export class LocalProvider implements Provider {
  readonly kind = 'local' as const;

  constructor(private readonly options: LocalProviderOptions = {}) {}

  private async servingSdk(spec: EnvironmentSpec, root: string): Promise<ServingSdk> {
    const choice = sdkChoiceOf(spec);
    if (choice === 'bundled') return BUNDLED_SDK;
    const parentPath = (this.options.parentEnv ?? process.env)['PATH'] ?? '';
    const found = await probeOnce(`local:${parentPath}`, () => probeLocalSdk(root, this.options));
    return decideSdk(choice, found, 'the local python3');
  }

  /** The sandbox substrates get here, if bubblewrap works and the options allow it. */
  private async sandbox(root: string, sdk: ServingSdk): Promise<LocalSandbox | undefined> {
    const bwrap = this.options.sandbox === false ? undefined : bubblewrap();
    if (!bwrap) return undefined;
    const env = scrubbedEnv(this.options.parentEnv ?? process.env, {
      home: join(root, 'home'),
      tmp: join(root, 'tmp'),
    });
    return { bwrap, python: await sandboxPython(env, root, sdk.source === 'image' ? 'image' : 'bundled') };
  }

  async acquire(spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate> {
    if (opts.signal?.aborted) throw new CancelledError('acquire');
    const tempRoot = this.options.tempRoot ?? tmpdir();
    if (!swept.has(tempRoot)) {
      swept.add(tempRoot);
      for (const gone of await sweepOrphans(tempRoot))
        opts.log('engine', `removed ${gone}, left behind by a HUD Studio process that no longer runs`);
    }
    const root = mkdtempSync(join(tempRoot, `hud-studio-${opts.rolloutId.slice(0, 8)}-${opts.phase}-`));
    try {
      writeOwner(root, []);
      const work = join(root, 'work');
      const withheld = (src: string): boolean =>
        withheldFrom(opts.phase, relative(spec.envDir, src).split(sep).join('/'));
      cpSync(spec.envDir, work, {
        recursive: true,
        filter: (src) => src === spec.envDir || (!isSkippedDirName(basename(src)) && !withheld(src)),
      });
      mkdirSync(join(root, 'home'));
      mkdirSync(join(root, 'tmp'));
      mkdirSync(join(root, 'workspace'));
      const envPath = join(work, relative(spec.envDir, spec.envFile));
      const sdk = await this.servingSdk(spec, root);
      const sandbox = await this.sandbox(root, sdk);
      opts.log(
        'engine',
        `local substrate: private copy of ${spec.envDir} at ${work} (${sandbox ? 'bubblewrap sandbox' : 'process isolation only'})`,
      );
      const network = spec.runtimeConfig?.['network_mode'] ?? spec.runtimeConfig?.['network'];
      if (sandbox && (network === 'none' || network === 'no-network')) {
        // The control channel reaches the server through the host's loopback (docs/security.md).
        opts.log('engine', `the local runtime keeps the server's network; network mode ${network} holds on Docker`);
      }
      opts.log(
        'engine',
        `served by ${sdk.source === 'image' ? `the local python's HUD SDK (${sdk.name} ${sdk.version})` : "HUD Studio's bundled runtime"}`,
      );
      return new LocalSubstrate(
        root,
        work,
        envPath,
        { ...spec, useImageSdk: sdk.source === 'image' },
        this.options,
        sdk,
        sandbox,
        { id: opts.rolloutId, log: opts.log },
      );
    } catch (err) {
      rmSync(root, { recursive: true, force: true });
      throw new HudStudioError(
        'provider',
        `cannot prepare a local substrate for ${spec.envDir}: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
}

/** The environment's own python (PATH of the scrubbed environment), probed without the bundled runtime. */
async function probeLocalSdk(root: string, options: LocalProviderOptions): Promise<ServingSdk | null> {
  const env = scrubbedEnv(options.parentEnv ?? process.env, { home: join(root, 'home'), tmp: join(root, 'tmp') });
  const r = await execInGroup(['python3', '-c', SDK_PROBE_SCRIPT], { cwd: root, env, timeoutMs: 60_000 });
  return r.exitCode === 0 ? parseSdkProbe(r.stdout) : null;
}

export class LocalSubstrate implements Substrate {
  readonly info: SubstrateInfo;
  private server: GroupLeader | undefined;
  private port: number | undefined;
  private readonly groups = new Set<number>();
  private released: Promise<void> | undefined;
  /** The agent's pids cgroup while it has one (root only, agentCgroup.ts). */
  private agentPids: AgentCgroup | undefined;
  /** Set once making it was tried: a failure is said once, not at every command. */
  private agentPidsTried = false;

  constructor(
    readonly root: string,
    readonly workdir: string,
    readonly envPath: string,
    private readonly spec: EnvironmentSpec,
    private readonly options: LocalProviderOptions,
    sdk?: ServingSdk,
    private readonly sandbox?: LocalSandbox,
    private readonly rollout?: { id: string; log: AcquireOptions['log'] },
  ) {
    this.info = { id: basename(root), provider: 'local', isolation: 'process', ...(sdk ? { sdk } : {}) };
  }

  /** Process group of the served environment. */
  get serverPgid(): number | undefined {
    return this.server?.pid;
  }

  /** Every process group this substrate started (server and exec'd commands); all are killed at release. */
  get processGroups(): number[] {
    return [...this.groups];
  }

  /** `python`: whose modules come first (the bundled runtime, the local SDK), or none for the agent. */
  private env(extra: Record<string, string> | undefined, python: 'bundled' | 'image' | 'none'): Record<string, string> {
    const ours = python === 'bundled' ? [runtimePythonDir()] : [];
    const paths = python === 'none' ? [] : [...ours, ...(this.sandbox?.python.pythonPath ?? [])];
    return scrubbedEnv(this.options.parentEnv ?? process.env, {
      home: join(this.root, 'home'),
      tmp: join(this.root, 'tmp'),
      ...(paths.length ? { pythonPath: paths.join(':') } : {}),
      ...(extra ? { extra } : {}),
    });
  }

  /** argv as run in the server's sandbox (its interpreter by file), or as it is without one. */
  private inSandbox(argv: string[], cwd: string): string[] {
    if (!this.sandbox) return argv;
    const { bwrap, python } = this.sandbox;
    const [cmd, ...args] = argv;
    const command = cmd === 'python3' ? [python.executable, ...args] : argv;
    const view = {
      readable: [...python.readable, runtimePythonDir()],
      writable: [this.workdir, join(this.root, 'home'), join(this.root, 'tmp'), join(this.root, 'workspace')],
      cwd,
    };
    return [bwrap, ...serverSandboxArgs(view), ...scopedArgv(python.executable, command)];
  }

  async exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    this.assertLive();
    const cwd = opts.cwd ?? this.workdir;
    return execInGroup(this.inSandbox(argv, cwd), {
      ...opts,
      cwd,
      env: this.env(opts.env, 'bundled'),
      onGroup: (pgid) => this.addGroup(pgid),
    });
  }

  /** The agent's seat: its own folder, in bubblewrap's sandbox when the machine has it (localSandbox.ts). */
  agentSeat(): AgentSeat {
    this.assertLive();
    const workspace = this.agentWorkspace();
    const bwrap = this.sandbox?.bwrap;
    /** `readable`: host paths the command may also read (at the same paths), besides the agent's own view. */
    const run = (argv: string[], opts: ExecOptions = {}, readable: readonly string[] = []): Promise<ExecResult> => {
      this.assertLive();
      const cwd = opts.cwd ?? workspace;
      const env = this.env({ HOME: workspace, ...(bwrap ? { TMPDIR: '/tmp' } : {}), ...opts.env }, 'none');
      // Set inside the sandbox's user namespace, the limit counts that sandbox's processes alone.
      const limited = bwrap ? [bwrap, ...sandboxArgs(workspace, cwd, readable), ...underAgentLimits(argv)] : argv;
      // Root is exempt from that limit: its agent runs in a pids cgroup instead, joined before anything starts.
      const cgroup = this.agentCgroup();
      const command = cgroup ? cgroup.launch(limited) : limited;
      return execInGroup(command, { ...opts, cwd, env, onGroup: (pgid) => this.addGroup(pgid) });
    };
    const exec = (argv: string[], opts?: ExecOptions) => run(argv, opts);
    return {
      workdir: workspace,
      privileged: !bwrap,
      ...(bwrap ? {} : { privilegedWhy: 'the local runtime has no sandbox here (install bubblewrap)' }),
      exec,
      copyIn: async (hostPath, dest) => {
        const target = dest.startsWith('/') ? dest : join(workspace, dest);
        if (!bwrap) return this.copyIn(hostPath, target);
        // Inside the agent's sandbox, with its rights and view: the host user's copy followed a link the agent
        // left on the way (`inbox -> ~/.ssh`) wherever it led (docs/security.md, "Local runtime").
        // Absolute, since bwrap and cp start in the workspace; checked here, where the error can name it plainly.
        const source = resolve(hostPath);
        if (!existsSync(source)) throw new HudStudioError('provider', `cannot copy ${source}: it does not exist`);
        const res = await run(agentCopyArgv(source, target), { timeoutMs: AGENT_COPY_TIMEOUT_MS }, [source]);
        if (res.exitCode !== 0) throw agentCopyFailed(target, res);
      },
      // The sandbox's PID namespace ended with each command; without one, release() kills the groups.
      // The agent's cgroup (root) goes now, with whatever is left in it.
      end: async () => {
        await this.endAgentCgroup();
        return this.checkAgentTurnEnd(workspace);
      },
    };
  }

  /**
   * In a fresh sandbox of the agent's (turnEndCheck.ts): what the server
   * alone sees (its copy of the environment, HOME, TMPDIR, its own /tmp) is
   * not there, so a link to it leads nowhere and is cut. Without bubblewrap
   * the agent saw all the server sees: nothing to cut.
   */
  private async checkAgentTurnEnd(workspace: string): Promise<TurnEndCheck> {
    this.assertLive();
    if (!this.sandbox) return NOTHING_CHECKED;
    const { bwrap, python } = this.sandbox;
    const argv = [bwrap, ...sandboxArgs(workspace, '/', python.readable), python.executable];
    const res = await execInGroup([...argv, '-I', '-S', '-c', TURN_END_CHECK_SCRIPT, workspace], {
      cwd: '/',
      env: this.env({}, 'none'),
      timeoutMs: TURN_END_CHECK_TIMEOUT_MS,
      onGroup: (pgid) => this.addGroup(pgid),
    });
    return turnEndCheckOf(res, [workspace]);
  }

  /**
   * The agent's pids cgroup when the engine runs as root, made at its first
   * command (agentCgroup.ts). Where none can be made the agent runs as
   * before, without a process limit, and the rollout's log says so once.
   */
  private agentCgroup(): AgentCgroup | undefined {
    if (this.agentPids || this.agentPidsTried || !this.rollout || process.getuid?.() !== 0) return this.agentPids;
    this.agentPidsTried = true;
    let why: string;
    try {
      const place = pidsCgroupPlace(CGROUP_FS, readFileSync('/proc/self/cgroup', 'utf8'));
      if (place.version !== null) {
        this.agentPids = AgentCgroup.create(place, this.rollout.id);
        return this.agentPids;
      }
      why = place.why;
    } catch (err) {
      why = (err as Error).message;
    }
    this.rollout.log(
      'engine',
      `warning: the engine runs as root, which the agent's process limit does not bind, and no pids cgroup could be made for the agent (${why}): a fork bomb of the agent's is not stopped (docs/security.md)`,
    );
    return undefined;
  }

  /** Kills what is left in the agent's cgroup and removes it; the next agent command would make a new one. */
  private async endAgentCgroup(): Promise<void> {
    const cgroup = this.agentPids;
    if (!cgroup) return;
    this.agentPids = undefined;
    this.agentPidsTried = false;
    if (!(await cgroup.remove()))
      this.rollout?.log('engine', `warning: the agent's pids cgroup ${cgroup.dir} would not go`);
  }

  /** The agent's folder; acquire() made it, before the server starts, so that the environment can prepare it. */
  private agentWorkspace(): string {
    return join(this.root, 'workspace');
  }

  execPython(args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return this.exec(['python3', ...args], opts);
  }

  async serve(opts: ServeOptions): Promise<void> {
    this.assertLive();
    if (this.server) throw new HudStudioError('provider', 'this substrate already serves an environment');
    const bundled = !this.spec.useImageSdk;
    const argv = bundled
      ? serveArgv(this.envPath, opts.envName)
      : imageServeArgv(this.envPath, opts.envName, [join(runtimePythonDir(), 'hud_studio')]);
    const { child } = await spawnGroupLeader(this.inSandbox(argv, this.workdir), {
      cwd: this.workdir,
      env: this.env({ [AGENT_WORKSPACE_ENV]: this.agentWorkspace(), ...opts.env }, bundled ? 'bundled' : 'image'),
    });
    this.server = child;
    if (child.pid !== undefined) this.addGroup(child.pid);
    try {
      this.port = await waitForServePort(child, opts);
    } catch (err) {
      await this.release();
      throw err;
    }
  }

  async openChannel(signal?: AbortSignal): Promise<Duplex> {
    this.assertLive();
    if (this.port === undefined) throw new HudStudioError('provider', 'openChannel before serve');
    return connectTcp('127.0.0.1', this.port, signal ? { signal } : {});
  }

  async copyIn(hostPath: string, dest: string): Promise<void> {
    this.assertLive();
    const target = this.resolveInside(dest);
    mkdirSync(target, { recursive: true });
    cpSync(hostPath, join(target, basename(hostPath)), { recursive: true });
  }

  async copyOut(src: string, hostDir: string): Promise<void> {
    this.assertLive();
    mkdirSync(hostDir, { recursive: true });
    const from = this.resolveInside(src);
    cpSync(from, join(hostDir, basename(from)), { recursive: true });
  }

  release(): Promise<void> {
    this.released ??= (async () => {
      const grace = this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
      // The server first, with its grace period, so the template's teardown can run.
      const server = this.server;
      // The server's last output (a line without newline included) is logged once its pipes close.
      const drained = server ? outputClosed(server) : Promise.resolve();
      if (server?.pid !== undefined) {
        // In a sandbox, SIGTERM must reach the server but not bwrap, whose death would skip the teardown.
        await (this.sandbox ? stopSandbox(server.pid, grace) : killGroup(server.pid, grace));
      }
      await drained;
      await Promise.all([...this.groups].map((g) => killGroup(g, 1_000)));
      // A cancelled or failed rollout may not have ended its agent's turn.
      await this.endAgentCgroup();
      rmSync(this.root, { recursive: true, force: true });
    })();
    return this.released;
  }

  private addGroup(pgid: number): void {
    this.groups.add(pgid);
    // Recorded so that a later process can stop these groups if we die without releasing them.
    if (!this.released) writeOwner(this.root, [...this.groups]);
  }

  private resolveInside(p: string): string {
    // Paths are relative to the work folder; absolute ones are taken as they are (the host is shared).
    return p.startsWith('/') ? p : join(this.workdir, p);
  }

  private assertLive(): void {
    if (this.released) throw new HudStudioError('provider', `local substrate ${this.info.id} was already released`);
  }
}

/** Resolves when the child's output pipes closed, or after a short wait (a grandchild may hold them). */
function outputClosed(child: GroupLeader): Promise<void> {
  if (child.exitCode !== null && child.stdout?.readableEnded !== false && child.stderr?.readableEnded !== false) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, 2_000);
    child.once('close', () => (clearTimeout(timer), resolve()));
  });
}
