/**
 * Docker provider: a fresh container per substrate (isolation by container).
 *
 * Image: `--image`/setting, else the task's runtime_config image, else the
 * Dockerfile beside env.py (built with its folder as context, cached by
 * content), else python:3.11-slim. The bundled runtime is copied to
 * /opt/hud-studio/runtime and the environment's folder to /opt/hud-studio/env. The
 * bundled server's interpreter is, where it can be, the container's own
 * process, and the control channel rides on its stdio; otherwise the server
 * runs as an exec and the channel is relayed through the container's own
 * loopback (docs/engine.md). Either way network mode none works. Agents work
 * in /workspace as an unprivileged user of their own (docs/security.md).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { buildImage } from '../docker/build';
import { dockerClient, dockerHost } from '../docker/client';
import {
  createContainer,
  describeCopy,
  inspectImage,
  isRootUser,
  type CopyItem,
  DockerContainer,
  type ImageFacts,
  type PackedCopy,
} from '../docker/container';
import { spawnExec, type InteractiveExec } from '../docker/exec';
import { sweepOrphansOnce } from '../docker/cleanup';
import { ImageMissingError, dockerMessage } from '../docker/errors';
import { LineSplitter } from '../output/lineSplitter';
import { openRelay, prepareRelay, type PendingRelay } from '../docker/relay';
import { openStdioChannel } from '../docker/stdioChannel';
import type { ContainerSpec, ManagedContainer, NetworkMode, RunningExec } from '../docker/types';
import { CancelledError, HudStudioError, TimeoutError } from '../errors';
import { runtimePythonDir } from '../runtimePaths';
import { runtimeWithBytecode, type RuntimeCopySource } from '../runtimeBytecode';
import type { ServingSdk, SubstrateInfo } from '../../../../common/trace/schema';
import {
  AGENT_WORKSPACE_ENV,
  type AcquireOptions,
  type AgentSeat,
  type EnvironmentSpec,
  type ExecOptions,
  type ExecResult,
  type Provider,
  type RuntimeConfig,
  type ServeOptions,
  type SpanRecorder,
  type Substrate,
} from './provider';
import { CONTAINER_PIDS_LIMIT } from '../docker/pidsLimit';
import { DockerAgentSeat, WORKSPACE_DIR } from './dockerAgentSeat';

export { AGENT_UIDS, ROOT_AGENT_LABEL, WORKSPACE_DIR } from './dockerAgentSeat';
import { PrestartedReplies } from './prestartedReplies';
import { imageServeArgv, serveArgv } from './serveProcess';
import {
  BUNDLED_SDK,
  decideSdk,
  parseSdkProbe,
  probedAlready,
  probeOnce,
  sdkChoiceOf,
  SDK_PROBE_SCRIPT,
} from './servingSdk';
import { withheldFrom } from './verifierOnly';
import { skipCopied } from './copySkips';
import { JobCopies } from './jobCopies';
import {
  CONTENT_ID_FILE,
  MOUNT_MISMATCH,
  mountedRuntimeArgs,
  runtimeMountFor,
  type RuntimeMount,
} from './runtimeMount';

export { defaultDockerHost, dockerAvailable, dockerHost, isLocalDaemon } from '../docker/client';

export const DEFAULT_IMAGE = 'python:3.11-slim';
export const RUNTIME_DIR = '/opt/hud-studio/runtime';
/** Only `hud_studio` (discovery): for images that bring their own `hud`, which must not be shadowed. */
export const TOOLS_DIR = '/opt/hud-studio/tools';
/** The environment's folder: the server's working folder, private to the server's user once an agent runs. */
export const ENV_DIR = '/opt/hud-studio/env';

const DEFAULT_STARTUP_MS = 120_000;
const DEFAULT_SERVE_TIMEOUT_MS = 60_000;
/** How long the server gets after SIGTERM to run its teardown before the container goes. */
const DEFAULT_STOP_GRACE_MS = 5_000;
/** Above this, the environment's folder goes by putArchive, which streams large files faster. */
const STDIN_COPY_MAX_BYTES = 8 * 1024 * 1024;

/** The bundled runtime with its bytecode (docs/substrate-copy.md). */
function bundledRuntimeCopy(): Promise<RuntimeCopySource> {
  return runtimeWithBytecode({ sourceDir: runtimePythonDir(), containerDir: RUNTIME_DIR, skip: skipCopied });
}
const PORT_LINE = /^HUD_SERVE_PORT=(\d+)\s*$/;
/** The pre-started server's last line on stderr (hud_studio/prestart.py). */
const SERVER_ENDED = 'HUD_STUDIO_SERVER_ENDED';
/**
 * The bundled server, started ahead of serve() with its imports done: serve()
 * sends one JSON line (argv + the environment's own variables) and it runs
 * `hud.environment.server.main` at once. Importing Python (asyncio, the SDK)
 * is the slow part of a server start; this overlaps it with discovery.
 */
// It also answers discovery requests from forked children (runtime/python/hud_studio/prestart.py).
const PRESTARTED_SERVER = 'from hud_studio.prestart import main; main()';
/** The pre-started interpreter is the container's own process (DockerContainer.takeMain), not an exec. */
const OWN_PROCESS = Symbol('own process');
let unpackCode: string | undefined;
/** The source of hud_studio/unpack.py, run as `python3 -c` before the runtime is in the container. */
function unpackSource(): string {
  unpackCode ??= readFileSync(join(runtimePythonDir(), 'hud_studio', 'unpack.py'), 'utf8');
  return unpackCode;
}
/**
 * unpack.py as the container's own process (`python3 -u -c`): the variables
 * an exec would have been given are set here instead, for this process and
 * its children only; in the container's configuration every exec (the
 * agent's too) would inherit them. The runtime's folder sits where
 * PYTHONPATH would have put it, right after the script's own entry.
 */
function ownProcessSource(): string {
  return [
    'import os, sys',
    `os.environ.update(PYTHONUNBUFFERED="1", PYTHONPATH=${JSON.stringify(RUNTIME_DIR)})`,
    `sys.path.insert(1, ${JSON.stringify(RUNTIME_DIR)})`,
    unpackSource(),
  ].join('\n');
}
// Bytecode caching stays on: discovery compiles the runtime once and the server's start reuses it.
const PY_ENV = { PYTHONUNBUFFERED: '1' };

export interface DockerProviderOptions {
  /** Image when nothing else names one (default python:3.11-slim). */
  defaultImage?: string;
  /** Remove leftovers of dead owners before the first container (default true). */
  removeOrphans?: boolean;
  stopGraceMs?: number;
  /** Start the bundled server's interpreter while discovery runs (default true). */
  prestartServer?: boolean;
  /**
   * Mount the compiled runtime read-only where the daemon can see it, rather
   * than copy it into every container (default true; docs/substrate-copy.md).
   */
  mountRuntime?: boolean;
  /** Where the daemon finds the compiled runtime's folder, when its path there is not ours (default: ours). */
  runtimeMountSource?: string;
}

export class DockerProvider implements Provider {
  readonly kind = 'docker' as const;
  // A container of its own: own file system, processes and loopback, where its server listens.
  isolatesSubstrates(): boolean {
    return true;
  }

  private readonly images = new Map<string, Promise<ImageFacts>>();
  /** This job's copies, packed again only when their folders change. */
  private readonly copies = new JobCopies();
  /** Why this job's daemon cannot mount the runtime, once a container found out. */
  private mountRefused: string | undefined;

  constructor(private readonly options: DockerProviderOptions = {}) {}

  async acquire(spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate> {
    if (spec.runtimeConfig?.compose) {
      throw new HudStudioError(
        'provider',
        'compose runtime_config is handled by ComposeProvider, not the Docker provider',
        {
          location: { file: spec.envFile },
          hint: 'run this task with the compose runtime, or remove runtime_config.compose to run it in a single container',
        },
      );
    }
    const startupMs = opts.startupTimeoutMs ?? DEFAULT_STARTUP_MS;
    const timeout = AbortSignal.timeout(startupMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const stopped = (): HudStudioError =>
      opts.signal?.aborted
        ? new CancelledError(`starting the ${opts.phase} container`)
        : new TimeoutError(`starting the ${opts.phase} container`, startupMs);
    const check = (): void => {
      if (signal.aborted) throw stopped();
    };

    // The sweep only removes dead owners' containers, never ours: it runs alongside the set-up.
    const sweep =
      this.options.removeOrphans === false ? Promise.resolve() : sweepOrphansOnce((line) => opts.log('engine', line));
    try {
      return await this.provision(spec, opts, signal, check);
    } finally {
      await sweep;
    }
  }

  private async provision(
    spec: EnvironmentSpec,
    opts: AcquireOptions,
    signal: AbortSignal,
    check: () => void,
    /** False after the server's interpreter as the container's own process failed: then the plain way. */
    ownProcess = true,
  ): Promise<Substrate> {
    const rc = spec.runtimeConfig;
    const network = networkOf(rc, spec.envFile);
    let image: string;
    try {
      image = await this.resolveImage(spec, opts, signal);
    } catch (err) {
      check(); // a build stopped by our deadline or the caller's cancel says which
      throw err;
    }
    check();
    const resources = rc?.resources ?? undefined;
    const containerSpec: ContainerSpec = {
      image,
      rolloutId: opts.rolloutId,
      phase: opts.phase,
      network,
      // Not ENV_DIR: the daemon would make it at create, before the copy can say what is wrong with /opt/hud-studio.
      workdir: WORKSPACE_DIR,
      noNewPrivileges: true,
      // Without it, a fork bomb in the container takes every pid of the host (docs/security.md).
      pidsLimit: CONTAINER_PIDS_LIMIT,
      ...numberField(resources, 'cpu', (v) => ({ cpus: v })),
      ...numberField(resources, 'memory_mb', (v) => ({ memoryMb: v })),
      ...numberField(resources, 'storage_mb', (v) => ({ storageMb: v })),
      ...gpuField(resources),
    };
    // The runtime with its bytecode (compiled once per runtime version, docs/substrate-copy.md) and the job's
    // packed copy: its size decides how the copy travels, and so what the container runs.
    const runtime = await bundledRuntimeCopy();
    const prestartWanted = this.options.prestartServer !== false;
    const facts = await this.factsOf(image, opts, signal, check);
    const ownWanted = ownProcess && prestartWanted && this.mayServeAsOwnProcess(spec, facts);
    // Mounted read-only rather than copied where our interpreter is the container's own process: it checks
    // the mount before it unpacks anything (providers/runtimeMount.ts).
    let mount = ownWanted ? this.runtimeMount(runtime) : undefined;
    let packed = await this.packFor(spec, opts.phase, runtime, mount);
    const direct = ownWanted && packed.bytes <= STDIN_COPY_MAX_BYTES;
    if (mount && !direct) {
      mount = undefined;
      packed = await this.packFor(spec, opts.phase, runtime, mount);
    }
    let container: DockerContainer;
    const creating = performance.now();
    try {
      if (direct) {
        const made = await this.createOf({
          ...containerSpec,
          cmd: ['python3', '-u', '-c', ownProcessSource(), ...(mount ? mountedRuntimeArgs(RUNTIME_DIR, mount) : [])],
          attach: true,
          ...(mount ? { readOnlyMounts: [{ source: mount.source, target: RUNTIME_DIR }] } : {}),
        }).catch((err: unknown) => err);
        if (!(made instanceof DockerContainer)) {
          check();
          if (mount) {
            // The daemon refused the mount (a folder it cannot see...): the same container, the runtime copied.
            this.refuseMount(`the Docker daemon refused it: ${dockerMessage(made)}`, opts);
            return await this.provision(spec, opts, signal, check, ownProcess);
          }
          // Not created, or its process could not be attached to: the plain way says what is wrong, or works.
          return await this.provision(spec, opts, signal, check, false);
        }
        container = made;
      } else container = (await this.createOf(containerSpec)) as DockerContainer;
    } catch (err) {
      if (!(err instanceof ImageMissingError)) throw err;
      await pullImage(image, opts, signal);
      check();
      container = (await this.createOf(containerSpec)) as DockerContainer;
    }
    opts.span?.('container create and start', creating, performance.now());
    try {
      for (const w of container.warnings) opts.log('engine', `warning: ${w}`);
      opts.log('engine', `container ${container.id.slice(0, 12)} of ${image} (network ${container.network})`);
      check();
      const sdk = await this.servingSdk(spec, container, signal);
      opts.log(
        'engine',
        `served by ${sdk.source === 'image' ? `the image's HUD SDK (${sdk.name} ${sdk.version})` : "HUD Studio's bundled runtime"}`,
      );
      check();
      if (!runtime.compiled) opts.log('engine', `the bundled runtime goes in without bytecode: ${runtime.reason}`);
      const envRel = relative(spec.envDir, spec.envFile).split(sep).join('/');
      const served: EnvironmentSpec = { ...spec, useImageSdk: sdk.source === 'image' };
      const substrate = new DockerSubstrate(
        container,
        `${ENV_DIR}/${envRel}`,
        served,
        this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS,
        sdk,
        opts.span,
        opts.removeLater,
      );
      const prestart = !served.useImageSdk && prestartWanted;
      const copying = performance.now();
      // The copy rides on the pre-started interpreter's stdin when that interpreter may write wherever
      // putArchive would (root) and the folder is small: a putArchive costs the daemon a helper process
      // (~60 ms), the stdin path ~5 ms per MB more than putArchive's own streaming.
      let viaStdin = false;
      if (container.hasOwnProcess && prestart) {
        const copy = await substrate.prestartWithCopy(packed, signal, opts.log, true);
        check();
        viaStdin = copy === true;
        if (!viaStdin) {
          await container.remove();
          if (mount && copy !== true && copy.error?.startsWith(MOUNT_MISMATCH)) {
            // The daemon mounted something else than our folder (it sees another file system): copy it.
            this.refuseMount(`the container saw another folder there (${copy.error})`, opts);
            return await this.provision(spec, opts, signal, check, ownProcess);
          }
          // Our interpreter could not be the container's process (no python3, an ENTRYPOINT that
          // does not run its command...): the plain way reports what is wrong, or works.
          return await this.provision(spec, opts, signal, check, false);
        }
      } else if (container.hasOwnProcess) {
        // The image's own SDK serves (its probe ran in this container): our interpreter only keeps it alive,
        // and nothing checked the mount yet, which discovery and the SDK's loader read from.
        container.takeMain();
        if (mount && !(await this.mountHolds(container, mount, signal))) {
          await container.remove();
          this.refuseMount('the container saw another folder there', opts);
          return await this.provision(spec, opts, signal, check, ownProcess);
        }
      } else if (prestart && container.runsAsRoot && packed.bytes <= STDIN_COPY_MAX_BYTES) {
        viaStdin = (await substrate.prestartWithCopy(packed, signal, opts.log)) === true;
        check();
      }
      if (!viaStdin) {
        await container.putPacked(packed);
        check();
        if (prestart) substrate.prestartServer();
      }
      opts.span?.(viaStdin ? 'copy in (pre-started interpreter)' : 'copy in (putArchive)', copying, performance.now());
      if (mount) opts.log('engine', `the bundled runtime is mounted read-only (${mount.contentId})`);
      return substrate;
    } catch (err) {
      await container.remove().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Whether the bundled server's interpreter can be the container's own
   * process, the copy riding on its stdin (docs/engine.md): the image's user
   * is root (it writes wherever putArchive would), the copy is small, the
   * image has no ENTRYPOINT (one that does not run its command would leave
   * the copy unanswered until the start-up timeout), and the image's own
   * SDK is not known to serve. One exec fewer per container;
   * an SDK probe still to run runs in it, and a server the image's own SDK
   * brings then runs beside our idle interpreter.
   */
  private mayServeAsOwnProcess(spec: EnvironmentSpec, facts: ImageFacts): boolean {
    const choice = sdkChoiceOf(spec);
    if (choice === 'image') return false;
    const probed = choice === 'bundled' ? BUNDLED_SDK : probedAlready(probeKey(facts.imageId));
    return probed?.source !== 'image' && !facts.hasEntrypoint && isRootUser(facts.imageUser);
  }

  /** The copy for a container: the environment's folder, and the runtime unless it is mounted. */
  private packFor(
    spec: EnvironmentSpec,
    phase: AcquireOptions['phase'],
    runtime: RuntimeCopySource,
    mount: RuntimeMount | undefined,
  ): Promise<PackedCopy> {
    const skipEnv = (rel: string, isDir: boolean): boolean => skipCopied(rel, isDir) || withheldFrom(phase, rel);
    // The bundled runtime is always there for discovery; only the bundled server gets it on PYTHONPATH.
    const copies: CopyItem[] = [
      ...(mount
        ? []
        : [{ hostPath: runtime.dir, dest: RUNTIME_DIR, ...(runtime.compiled ? {} : { skip: skipCopied }) }]),
      { hostPath: spec.envDir, dest: ENV_DIR, skip: skipEnv },
    ];
    const key = `${phase}\0${spec.envDir}\0${mount ? 'mounted' : runtime.dir}`;
    // The workspace root exists before the server starts, so that the environment can prepare it.
    return this.copies.pack(key, copies, [WORKSPACE_DIR]);
  }

  /** The runtime's read-only mount for a container of this job's daemon, unless it goes in by copy. */
  private runtimeMount(runtime: RuntimeCopySource): RuntimeMount | undefined {
    if (this.options.mountRuntime === false) return undefined;
    return runtimeMountFor(runtime, dockerHost(), {
      source: this.options.runtimeMountSource,
      refused: this.mountRefused,
    });
  }

  /** No more mounts for this job: its containers get the runtime by copy, as they would on a remote daemon. */
  private refuseMount(why: string, opts: AcquireOptions): void {
    if (this.mountRefused !== undefined) return;
    this.mountRefused = why;
    opts.log('engine', `the bundled runtime cannot be mounted read-only (${why}); it is copied into each container`);
  }

  /** Whether a container whose runtime is mounted sees the engine's folder there (unpack.py checks it otherwise). */
  private async mountHolds(container: DockerContainer, mount: RuntimeMount, signal: AbortSignal): Promise<boolean> {
    const r = await container
      .exec(['cat', `${RUNTIME_DIR}/${CONTENT_ID_FILE}`], { timeoutMs: 30_000, signal })
      .catch(() => undefined);
    return r?.exitCode === 0 && r.stdout.trim() === mount.contentId;
  }

  /** The image's inspection, kept for the job; pulled first when it is not on the Docker host. */
  private async factsOf(
    image: string,
    opts: AcquireOptions,
    signal: AbortSignal,
    check: () => void,
  ): Promise<ImageFacts> {
    try {
      return await this.keptFacts(image);
    } catch (err) {
      if (!(err instanceof ImageMissingError)) throw err;
      await pullImage(image, opts, signal);
      check();
      return this.keptFacts(image);
    }
  }

  private keptFacts(image: string): Promise<ImageFacts> {
    const kept = this.images.get(image);
    if (kept) return kept;
    const facts = inspectImage(dockerClient(), image);
    this.images.set(image, facts);
    facts.catch(() => this.images.delete(image));
    return facts;
  }

  /**
   * A container from the image inspected once by this provider (one per job):
   * a job's rollouts then all run the same image id, without an inspection
   * each. A failed inspection is not kept, and a create that fails with a
   * kept one (the image went away mid-job) tries once more with a fresh one.
   */
  private async createOf(spec: ContainerSpec): Promise<ManagedContainer> {
    const kept = this.images.get(spec.image);
    const facts = this.keptFacts(spec.image);
    try {
      return await createContainer(spec, facts);
    } catch (err) {
      if (!kept || this.images.get(spec.image) !== kept) throw err;
      this.images.delete(spec.image);
      return this.createOf(spec);
    }
  }

  /** The image's own HUD SDK when it can serve (probed once per image id), else the bundled runtime. */
  private async servingSdk(
    spec: EnvironmentSpec,
    container: DockerContainer,
    signal: AbortSignal,
  ): Promise<ServingSdk> {
    const choice = sdkChoiceOf(spec);
    if (choice === 'bundled') return BUNDLED_SDK;
    const found = await probeOnce(probeKey(container.imageId), async () => {
      const r = await container.exec(['python3', '-c', SDK_PROBE_SCRIPT], { env: PY_ENV, timeoutMs: 60_000, signal });
      return r.exitCode === 0 ? parseSdkProbe(r.stdout) : null;
    });
    return decideSdk(choice, found, `image ${container.image}`);
  }

  private async resolveImage(spec: EnvironmentSpec, opts: AcquireOptions, signal: AbortSignal): Promise<string> {
    const named =
      spec.image ??
      (typeof spec.runtimeConfig?.image === 'string' && spec.runtimeConfig.image
        ? spec.runtimeConfig.image
        : undefined);
    if (named) return named;
    if (existsSync(join(spec.envDir, 'Dockerfile'))) {
      const built = await buildImage({ contextDir: spec.envDir, signal, onLog: (line) => opts.log('engine', line) });
      return built.tag;
    }
    return this.options.defaultImage ?? DEFAULT_IMAGE;
  }
}

function probeKey(imageId: string): string {
  return `docker:${imageId}`;
}

/** Pulls an image that is not present locally. */
async function pullImage(image: string, opts: AcquireOptions, signal: AbortSignal): Promise<void> {
  const docker = dockerClient();
  opts.log('engine', `pulling ${image}`);
  try {
    const stream = await docker.pull(image, { abortSignal: signal });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
    );
  } catch (err) {
    if (signal.aborted) throw err;
    throw new ImageMissingError(image, `not found locally and the pull failed: ${dockerMessage(err)}`);
  }
}

function networkOf(rc: RuntimeConfig | null, envFile: string): NetworkMode {
  const raw = rc?.['network_mode'] ?? rc?.['network'];
  if (raw === undefined || raw === null) return 'bridge';
  if (raw === 'public' || raw === 'bridge' || raw === 'none' || raw === 'no-network') return raw;
  throw new HudStudioError(
    'provider',
    `runtime_config network mode ${JSON.stringify(raw)} is not supported by the Docker provider`,
    {
      location: { file: envFile, key: 'runtime_config.network_mode' },
      hint: 'use "public" (bridge) or "no-network" (none)',
    },
  );
}

function numberField<T>(
  src: Record<string, unknown> | null | undefined,
  key: string,
  make: (v: number) => T,
): T | Record<string, never> {
  const v = src?.[key];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? make(v) : {};
}

function gpuField(src: Record<string, unknown> | null | undefined): { gpus?: number | 'all' } {
  const v = src?.['gpus'];
  if (v === 'all') return { gpus: 'all' };
  return typeof v === 'number' && v > 0 ? { gpus: v } : {};
}

export class DockerSubstrate implements Substrate {
  readonly info: SubstrateInfo;
  readonly workdir = ENV_DIR;
  private server: RunningExec | undefined;
  /** Set when the pre-started interpreter serves: ending it stops the server as SIGTERM does (prestart.py). */
  private serverStdin: NodeJS.WritableStream | undefined;
  /** Settles when the server said it returned (SERVER_ENDED), before its process ends. */
  private serverEnded: Promise<void> | undefined;
  private port: number | undefined;
  /** The bundled server waiting for its arguments (see PRESTARTED_SERVER), with output kept until serve(). */
  private prestarted:
    | {
        exec: Promise<InteractiveExec | undefined>;
        output: { stream: 'stdout' | 'stderr'; text: string }[];
        sink?: (stream: 'stdout' | 'stderr', text: string) => void;
        /** Its stdout until serve(): discovery replies are taken out, the rest kept. */
        replies: PrestartedReplies;
      }
    | undefined;
  /** The pre-started server, until the first openChannel runs the control channel on its stdio. */
  private channelCarrier: InteractiveExec | undefined;
  /** Started at serve when the server is not pre-started, so that openChannel only has to connect. */
  private warmRelay: Promise<PendingRelay | undefined> | undefined;
  private released: Promise<void> | undefined;
  private stopped: Promise<void> | undefined;
  private seat: DockerAgentSeat | undefined;

  constructor(
    readonly container: DockerContainer,
    readonly envPath: string,
    private readonly spec: EnvironmentSpec,
    private readonly stopGraceMs: number,
    sdk?: ServingSdk,
    private readonly span: SpanRecorder = () => undefined,
    private readonly removeLater?: (removal: Promise<void>) => void,
  ) {
    this.info = {
      id: container.id,
      provider: 'docker',
      isolation: 'container',
      image: container.image,
      imageId: container.imageId,
      network: container.network,
      ...(sdk ? { sdk } : {}),
    };
  }

  /** Limits the daemon could not apply (also logged at acquire). */
  get warnings(): string[] {
    return this.container.warnings;
  }

  /** Starts the bundled server's interpreter now; serve() hands it its arguments. */
  prestartServer(): void {
    this.startPrestarted(PRESTARTED_SERVER);
  }

  /**
   * Starts the bundled server's interpreter with nothing of the copy in the
   * container yet, and sends it the copy (hud_studio/unpack.py) before its
   * first request. True when that worked; otherwise (no python3 in the image,
   * a read-only path, a mounted runtime that is not ours...) the interpreter
   * is gone, `error` is its answer when it gave one, and the caller copies by
   * putArchive instead, whose error says more.
   */
  async prestartWithCopy(
    packed: PackedCopy,
    signal: AbortSignal,
    log: (stream: 'engine', text: string) => void,
    /** The interpreter is the container's own process (ownProcessSource), already running. */
    ownProcess = false,
  ): Promise<true | { error?: string }> {
    const state = this.startPrestarted(ownProcess ? OWN_PROCESS : unpackSource());
    const warm = await state.exec;
    const outcome = warm ? await state.replies.copy(warm, packed.open(), signal) : undefined;
    if (outcome && 'copied' in outcome) return true;
    if (this.prestarted === state) this.prestarted = undefined;
    state.replies.close();
    await warm?.kill('KILL').catch(() => undefined);
    // A mount that is not ours is the provider's to report: it copies the runtime instead, through python3 still.
    if (outcome && !signal.aborted && !outcome.error.startsWith(MOUNT_MISMATCH))
      log(
        'engine',
        `copying ${describeCopy(packed.items)} through python3 failed (${outcome.error}); copying it with the Docker API instead`,
      );
    return outcome ? { error: outcome.error } : {};
  }

  private startPrestarted(code: string | typeof OWN_PROCESS): NonNullable<DockerSubstrate['prestarted']> {
    const keep = (stream: 'stdout' | 'stderr', text: string): void =>
      state.sink ? state.sink(stream, text) : void state.output.push({ stream, text });
    const state: NonNullable<DockerSubstrate['prestarted']> = {
      exec: Promise.resolve(undefined),
      output: [],
      replies: new PrestartedReplies((text) => keep('stdout', text)),
    };
    const onOutput = (stream: 'stdout' | 'stderr', text: string): void =>
      stream === 'stdout' && !state.sink ? state.replies.push(text) : keep(stream, text);
    state.exec =
      code === OWN_PROCESS
        ? Promise.resolve(this.container.takeMain({ onOutput }))
        : spawnExec(
            this.container.handle,
            ['python3', '-c', code],
            {
              // The environment's folder may not be there yet (it may be on its way through this interpreter's
              // stdin): the serve request names it, and the server changes into it (hud_studio/prestart.py).
              cwd: WORKSPACE_DIR,
              env: this.pythonEnv(false),
              onOutput,
            },
            true,
          ).catch(() => undefined);
    // An interpreter that ends (or never started) answers no more requests.
    void state.exec.then((e) => (e ? e.done : undefined)).then(() => state.replies.close());
    this.prestarted = state;
    return state;
  }

  exec(argv: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    this.assertLive();
    const env = { ...this.container.enginePathEnv, ...opts.env };
    return this.container.exec(argv, { ...opts, env, cwd: opts.cwd ?? this.workdir });
  }

  async execPython(args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    if (args[0] === '-m' && args[1] === 'hud_studio.discover') {
      const forked = await this.discoverInPrestarted(args.slice(2), opts);
      if (forked) return forked;
    }
    return this.exec(['python3', ...args], { ...opts, env: { ...this.pythonEnv(true), ...opts.env } });
  }

  /** Discovery in a child of the pre-started interpreter; undefined when only the plain exec can run it. */
  private async discoverInPrestarted(args: string[], opts: ExecOptions): Promise<ExecResult | undefined> {
    this.assertLive();
    const state = this.prestarted;
    if (!state || state.sink || opts.stdin !== undefined || opts.user !== undefined) return undefined;
    const warm = await state.exec;
    if (!warm || this.prestarted !== state || state.sink) return undefined;
    const giveUp = async (): Promise<void> => {
      // The container's own process stays (it is the container): it kills the discovery's child itself.
      if (this.container.hasOwnProcess) return void (await this.container.signalMain('SIGUSR1'));
      // The server cannot start in an interpreter that was killed: serve() starts a fresh one.
      if (this.prestarted === state) this.prestarted = undefined;
      return warm.kill('KILL').catch(() => undefined);
    };
    return state.replies.request(
      warm,
      args,
      { ...opts, cwd: opts.cwd ?? this.workdir, env: { ...this.pythonEnv(true), ...opts.env } },
      giveUp,
    );
  }

  async serve(opts: ServeOptions): Promise<void> {
    this.assertLive();
    if (this.server) throw new HudStudioError('provider', 'this substrate already serves an environment');
    const timeoutMs = opts.timeoutMs ?? DEFAULT_SERVE_TIMEOUT_MS;
    const tail: string[] = [];
    let onPort: ((port: number) => void) | undefined;
    const portSeen = new Promise<number>((resolve) => (onPort = resolve));
    // The pre-started server says on stderr, where all but its port line goes, that it has returned
    // with its teardown done (hud_studio/prestart.py).
    let onEnded: (() => void) | undefined;
    this.serverEnded = new Promise<void>((resolve) => (onEnded = resolve));
    const splitters = {
      stdout: new LineSplitter((line) => {
        const m = PORT_LINE.exec(line);
        if (m && this.port === undefined) onPort?.(Number(m[1]));
        else keep(line);
      }),
      stderr: new LineSplitter((line) => (line === SERVER_ENDED ? onEnded?.() : keep(line))),
    };
    function keep(line: string): void {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      opts.log('server', line);
    }
    // The credentials in opts.env reach the server process only: not the container, not other execs.
    const env = { [AGENT_WORKSPACE_ENV]: WORKSPACE_DIR, ...opts.env };
    // The image's own SDK serves behind the same peer check as the bundled server (image_sdk_serve.py).
    const argv = this.spec.useImageSdk
      ? imageServeArgv(this.envPath, opts.envName, [`${RUNTIME_DIR}/hud_studio`, `${TOOLS_DIR}/hud_studio`])
      : serveArgv(this.envPath, opts.envName);
    const onOutput = (stream: 'stdout' | 'stderr', text: string): void => splitters[stream].push(text);
    const prestarted = this.prestarted;
    this.prestarted = undefined;
    const warm = await prestarted?.exec;
    let run: RunningExec;
    if (prestarted && warm) {
      prestarted.replies.close();
      prestarted.sink = onOutput;
      for (const o of prestarted.output.splice(0)) onOutput(o.stream, o.text);
      warm.stdin.write(`${JSON.stringify({ argv: argv.slice(3), env, cwd: this.workdir, channel: true })}\n`);
      run = warm;
      this.serverStdin = warm.stdin;
      this.channelCarrier = warm;
    } else {
      run = await this.container.spawn(argv, {
        cwd: this.workdir,
        env: { ...this.pythonEnv(false), ...env },
        onOutput,
      });
    }
    this.server = run;
    if (!this.channelCarrier)
      this.warmRelay ??= prepareRelay(this.container.handle, this.relayPath()).catch(() => undefined);
    const exited = run.done.then((r) => {
      splitters.stdout.end();
      splitters.stderr.end();
      return r;
    });

    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(`starting the ${opts.envName} server`, timeoutMs)), timeoutMs);
      onAbort = () => reject(new CancelledError('serve'));
      if (opts.signal?.aborted) onAbort();
      opts.signal?.addEventListener('abort', onAbort, { once: true });
    });
    const early = exited.then((r): never => {
      const how = r.exitCode === null ? 'was killed' : `exited with code ${r.exitCode}`;
      throw new HudStudioError(
        'provider',
        `the ${opts.envName} server ${how} before it was ready${tail.length ? `:\n${tail.join('\n')}` : ''}`,
        {
          hint: `run it by hand to see the full error: docker run --rm -it ${this.container.image} python3 -m hud.environment.server ${this.envPath} --env ${opts.envName}`,
        },
      );
    });
    try {
      this.port = await Promise.race([portSeen, stop, early]);
    } catch (err) {
      await run.kill('KILL').catch(() => undefined);
      throw err;
    } finally {
      clearTimeout(timer);
      if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
      // Later rejections of these races are expected and handled above.
      stop.catch(() => undefined);
      early.catch(() => undefined);
    }
  }

  async openChannel(signal?: AbortSignal): Promise<Duplex> {
    this.assertLive();
    if (this.port === undefined) throw new HudStudioError('provider', 'openChannel before serve');
    // The first channel rides on the pre-started server's own stdio: no exec (docs/hud-protocol.md).
    const carrier = this.channelCarrier;
    this.channelCarrier = undefined;
    if (carrier) {
      try {
        return await openStdioChannel(carrier, this.port, signal ? { signal } : {});
      } catch (err) {
        if (signal?.aborted) throw err;
        // Fall through: a relay reports the failure (or works).
      }
    }
    const warm = await this.warmRelay;
    this.warmRelay = undefined;
    if (warm) {
      try {
        return await warm.connect(this.port, signal ? { signal } : {});
      } catch (err) {
        if (signal?.aborted) throw err;
        // Fall through: a fresh relay reports the failure (or works, if the warm one died early).
      }
    }
    return openRelay(this.container.handle, this.port, { ...this.relayPath(), ...(signal ? { signal } : {}) });
  }

  /** Relays run as the server's user: they look python3 up where the agent cannot have put one. */
  private relayPath(): { path?: string } {
    const { PATH } = this.container.enginePathEnv;
    return PATH === undefined ? {} : { path: PATH };
  }

  agentSeat(): AgentSeat {
    this.assertLive();
    // The image's own SDK serves with the image's PYTHONPATH (pythonEnv): its graders import from there too.
    this.seat ??= new DockerAgentSeat(
      this.container,
      ENV_DIR,
      this.spec.useImageSdk ? this.container.imagePythonPath : undefined,
    );
    return this.seat;
  }

  copyIn(hostPath: string, dest: string): Promise<void> {
    this.assertLive();
    return this.container.copyIn(hostPath, dest.startsWith('/') ? dest : `${this.workdir}/${dest}`);
  }

  copyOut(src: string, hostDir: string): Promise<void> {
    this.assertLive();
    return this.container.copyOut(src.startsWith('/') ? src : `${this.workdir}/${src}`, hostDir);
  }

  /** Stops the server (SIGTERM, then the grace), so its teardown runs and is logged; the container stays. */
  stopServer(): Promise<void> {
    this.stopped ??= (async () => {
      void this.warmRelay?.then((r) => r?.dispose());
      // An interpreter that never got its arguments reads end-of-file and exits.
      void this.prestarted?.exec.then((e) => e?.stdin.end());
      const server = this.server;
      if (!server) return;
      const stopping = performance.now();
      // SIGTERM first so the template's teardown (generator finally blocks, @env.shutdown) runs.
      // The pre-started server takes it from the end of its stdin, which saves a `docker exec`.
      if (this.serverStdin) this.serverStdin.end();
      else await server.kill('TERM').catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      // Its last words, or its output's end, say that its teardown is done: neither the end of its process
      // (and of the container, where the server is its own process) nor its exit code (more daemon calls) is needed.
      await Promise.race([
        ...(this.serverEnded ? [this.serverEnded] : []),
        (server.outputEnded ?? server.done).catch(() => undefined),
        new Promise((r) => (timer = setTimeout(r, this.stopGraceMs))),
      ]);
      clearTimeout(timer);
      this.span('server stop (teardown)', stopping, performance.now());
    })();
    return this.stopped;
  }

  release(): Promise<void> {
    this.released ??= (async () => {
      await this.stopServer();
      const removing = performance.now();
      const removal = this.container.remove().then(() => this.span('container remove', removing, performance.now()));
      if (!this.removeLater) return removal;
      this.removeLater(removal);
    })().catch((err: unknown) => {
      // Let a later release() try again (the daemon may have been busy).
      this.released = undefined;
      throw err;
    });
    return this.released;
  }

  private pythonEnv(forDiscovery: boolean): Record<string, string> {
    if (!this.spec.useImageSdk) return { ...PY_ENV, PYTHONPATH: RUNTIME_DIR };
    // The image's own `hud` serves with nothing of ours on its path; discovery (a process of its own)
    // reads the file with the bundled runtime (or, where only the tools were copied, the image's SDK).
    return forDiscovery ? { ...PY_ENV, PYTHONPATH: `${RUNTIME_DIR}:${TOOLS_DIR}` } : { ...PY_ENV };
  }

  private assertLive(): void {
    if (this.released)
      throw new HudStudioError('provider', `container ${this.info.id.slice(0, 12)} was already released`);
  }
}
