/**
 * Compose provider: for env.py tasks whose runtime_config names a compose
 * project. The project comes up through the real Compose CLI (unique project
 * name per rollout and phase, our labels, `down -v` on release); the
 * environment server runs in service `main` exactly as in the Docker
 * provider (bundled runtime copied in, served as an exec, control channel
 * relayed through main's own loopback), so sidecars are reachable from the
 * environment by service name and nothing is published on the host.
 *
 * `service_access` mounts the Docker socket into `main`: code there controls
 * every container of the daemon, so it needs the user's explicit consent and
 * a local daemon (docs/hud-protocol.md); otherwise acquire refuses with a typed error.
 */
import type { Fix } from '../../../../common/fix';
import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import type { Duplex } from 'node:stream';
import { dockerHost, isLocalDaemon } from '../docker/client';
import { ComposeProject } from '../docker/compose';
import { DOCKER_SOCKET, MAIN_SERVICE } from '../docker/composeFile';
import { CancelledError, HudStudioError, TimeoutError } from '../errors';
import { runtimePythonDir } from '../runtimePaths';
import type { SubstrateInfo } from '../../../../common/trace/schema';
import { DockerSubstrate, ENV_DIR, RUNTIME_DIR, TOOLS_DIR } from './docker';
import { skipCopied } from './copySkips';
import type {
  AcquireOptions,
  EnvironmentSpec,
  ExecOptions,
  ExecResult,
  Provider,
  RuntimeConfig,
  ServeOptions,
  Substrate,
} from './provider';

/** Compose files an env.py's runtime_config.compose = true looks for beside it. */
const COMPOSE_FILES = ['docker-compose.yaml', 'docker-compose.yml', 'compose.yaml', 'compose.yml'] as const;

const DEFAULT_STARTUP_MS = 300_000;
const DEFAULT_STOP_GRACE_MS = 5_000;

export interface ComposeConsent {
  /** The user explicitly allowed mounting the Docker socket into `main`. */
  serviceAccess?: boolean;
}

export interface ComposeProviderOptions {
  consent?: ComposeConsent;
  stopGraceMs?: number;
}

/** service_access was asked for without consent, or for a remote daemon. */
export class ServiceAccessError extends HudStudioError {
  constructor(message: string, hint: string, file: string, fix?: Fix) {
    super('provider', message, {
      hint,
      location: { file, key: 'runtime_config.compose.service_access' },
      ...(fix ? { fix } : {}),
    });
  }
}

export interface ComposePlan {
  composeFile: string;
  serviceAccess: boolean;
  network: 'default' | 'internal';
}

/** Reads runtime_config.compose: a file path, `true` (the compose file beside env.py), or `{file, service_access}`. */
export function composePlan(spec: EnvironmentSpec): ComposePlan | undefined {
  const rc: RuntimeConfig | null = spec.runtimeConfig;
  const raw = rc?.compose;
  if (raw === undefined || raw === null || raw === false) return undefined;
  const obj = typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const named =
    typeof raw === 'string'
      ? raw
      : typeof obj.file === 'string'
        ? obj.file
        : typeof obj.path === 'string'
          ? obj.path
          : undefined;
  const composeFile = named
    ? resolve(spec.envDir, named)
    : COMPOSE_FILES.map((f) => join(spec.envDir, f)).find((f) => existsSync(f));
  if (!composeFile || !existsSync(composeFile)) {
    throw new HudStudioError(
      'provider',
      `runtime_config.compose names ${named ? `"${named}", which does not exist` : 'no file and there is no docker-compose.yaml beside the env file'}`,
      {
        location: { file: spec.envFile, key: 'runtime_config.compose' },
        hint: `put docker-compose.yaml in ${spec.envDir} or set compose to its path (relative to the env file's folder)`,
      },
    );
  }
  const serviceAccess = obj.service_access === true || rc?.service_access === true;
  const mode = rc?.['network_mode'] ?? rc?.['network'];
  const network = mode === 'none' || mode === 'no-network' ? 'internal' : 'default';
  return { composeFile, serviceAccess, network };
}

/** Refuses service_access unless consented and local; says why and how to consent. */
export function checkServiceAccess(
  spec: EnvironmentSpec,
  consent: ComposeConsent | undefined,
  host: string = dockerHost(),
): void {
  if (consent?.serviceAccess !== true) {
    throw new ServiceAccessError(
      `runtime_config.compose.service_access mounts the Docker socket (${DOCKER_SOCKET}) into service "${MAIN_SERVICE}": code there could start, read and delete every container of this Docker daemon, so it needs your explicit consent`,
      'if you trust this environment, allow service access for it, or remove service_access',
      spec.envFile,
      { kind: 'allow-service-access' },
    );
  }
  if (!isLocalDaemon(host)) {
    throw new ServiceAccessError(
      `runtime_config.compose.service_access is refused for the remote Docker daemon at ${host}: mounting its socket would hand the task control of another machine's containers`,
      'run this task against a local daemon (unset DOCKER_HOST), or remove service_access',
      spec.envFile,
    );
  }
}

export class ComposeProvider implements Provider {
  readonly kind = 'docker' as const;

  constructor(private readonly options: ComposeProviderOptions = {}) {}

  async acquire(spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate> {
    const plan = composePlan(spec);
    if (!plan)
      throw new HudStudioError('provider', 'this task has no runtime_config.compose', {
        hint: 'use the Docker provider for single-container tasks',
      });
    if (plan.serviceAccess) checkServiceAccess(spec, this.options.consent);
    const startupMs = opts.startupTimeoutMs ?? DEFAULT_STARTUP_MS;
    const timeout = AbortSignal.timeout(startupMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;

    let project: ComposeProject;
    try {
      project = await ComposeProject.up({
        composeFile: plan.composeFile,
        rolloutId: opts.rolloutId,
        phase: opts.phase,
        network: plan.network,
        keepMainAlive: true,
        mountDockerSocket: plan.serviceAccess,
        allowHostAccess: this.options.consent?.serviceAccess === true,
        ownFolder: spec.envDir,
        signal,
        upTimeoutMs: startupMs,
        log: (line) => opts.log('engine', line),
      });
    } catch (err) {
      if (timeout.aborted && !opts.signal?.aborted)
        throw new TimeoutError(`starting the ${opts.phase} compose project`, startupMs);
      throw err;
    }
    try {
      for (const warning of project.prepared.warnings) opts.log('engine', `warning: ${warning}`);
      if (plan.serviceAccess)
        opts.log('engine', `warning: ${DOCKER_SOCKET} is mounted into "${MAIN_SERVICE}" (service_access, consented)`);
      const main = await project.service(MAIN_SERVICE);
      const runtime = runtimePythonDir();
      await Promise.all([
        spec.useImageSdk
          ? main.copyIn(join(runtime, 'hud_studio'), `${TOOLS_DIR}/hud_studio`, { skip: skipCopied })
          : main.copyIn(runtime, RUNTIME_DIR, { skip: skipCopied }),
        main.copyIn(spec.envDir, ENV_DIR, { skip: skipCopied }),
      ]);
      if (signal.aborted)
        throw opts.signal?.aborted
          ? new CancelledError(`starting the ${opts.phase} compose project`)
          : new TimeoutError(`starting the ${opts.phase} compose project`, startupMs);
      const envRel = relative(spec.envDir, spec.envFile).split(sep).join('/');
      const inner = new DockerSubstrate(
        main,
        `${ENV_DIR}/${envRel}`,
        spec,
        this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS,
      );
      return new ComposeSubstrate(inner, project);
    } catch (err) {
      await project.down().catch(() => undefined);
      throw err;
    }
  }
}

/** The Docker substrate of `main`, plus the project around it: releasing it takes the whole project down. */
export class ComposeSubstrate implements Substrate {
  readonly info: SubstrateInfo;
  private released: Promise<void> | undefined;

  constructor(
    private readonly inner: DockerSubstrate,
    readonly project: ComposeProject,
  ) {
    this.info = { ...inner.info, id: `${project.name}/${inner.info.id.slice(0, 12)}`, provider: 'compose' };
  }

  get envPath(): string {
    return this.inner.envPath;
  }
  get workdir(): string {
    return this.inner.workdir;
  }
  execPython(args: string[], opts?: ExecOptions): Promise<ExecResult> {
    return this.inner.execPython(args, opts);
  }
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    return this.inner.exec(argv, opts);
  }
  serve(opts: ServeOptions): Promise<void> {
    return this.inner.serve(opts);
  }
  openChannel(signal?: AbortSignal): Promise<Duplex> {
    return this.inner.openChannel(signal);
  }
  copyIn(hostPath: string, dest: string): Promise<void> {
    return this.inner.copyIn(hostPath, dest);
  }
  copyOut(src: string, hostDir: string): Promise<void> {
    return this.inner.copyOut(src, hostDir);
  }

  /** SIGTERM to the server (teardown runs), then `down -v` of every service, network and volume. */
  release(): Promise<void> {
    this.released ??= (async () => {
      try {
        await this.inner.release();
      } finally {
        await this.project.down();
      }
    })();
    return this.released;
  }
}

/** Routes tasks with runtime_config.compose to a ComposeProvider and everything else to `base`. */
export class ComposeAwareProvider implements Provider {
  readonly kind: Provider['kind'];
  private readonly compose: ComposeProvider;

  constructor(
    private readonly base: Provider,
    options: ComposeProviderOptions = {},
  ) {
    this.kind = base.kind;
    this.compose = new ComposeProvider(options);
  }

  /** A compose project may publish ports or share networks with the host: only the base provider's substrates say. */
  isolatesSubstrates(spec: EnvironmentSpec): boolean {
    return !composePlan(spec) && (this.base.isolatesSubstrates?.(spec) ?? false);
  }

  acquire(spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate> {
    return composePlan(spec) ? this.compose.acquire(spec, opts) : this.base.acquire(spec, opts);
  }
}
