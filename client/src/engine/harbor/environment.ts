/**
 * Where a trial phase runs: one container (a Dockerfile or docker_image) or
 * a Compose project with sidecars. Both look the same to the trial: services
 * by name (`main` is where the agent and a shared verifier work), exec and
 * copy through the Docker layer, and one idempotent teardown.
 */
import { buildImage } from '../docker/build';
import { ensureImage } from '../docker/pull';
import { ComposeProject } from '../docker/compose';
import { MAIN_SERVICE } from '../docker/composeFile';
import { sweepOrphansOnce } from '../docker/cleanup';
import { createContainer } from '../docker/container';
import { ContainerNetwork } from '../docker/containerNetwork';
import { EGRESS_DNS_OPTIONS, openEgress, serveEgress } from '../docker/egressProxy';
import { CONTAINER_PIDS_LIMIT } from '../docker/pidsLimit';
import type { ManagedContainer } from '../docker/types';
import { HudStudioError } from '../errors';
import { DEFAULT_IMAGE } from '../providers/docker';
import type { SubstrateInfo } from '../../../../common/trace/schema';
import type { EnvironmentConfig } from '../../../../common/harbor';
import { planNetwork, type NetworkPolicy } from './network';

export interface TrialEnvironment {
  readonly substrate: SubstrateInfo;
  /** Limits or modes that could not be applied, network caveats. */
  readonly warnings: string[];
  readonly services: string[];
  service(name: string): Promise<ManagedContainer>;
  /**
   * Moves a single container to another policy's network (a shared verifier's own, docker/containerNetwork.ts);
   * returns the variables the commands under it need. Undefined for a Compose project, which keeps its policy.
   */
  setNetwork?(policy: NetworkPolicy): Promise<Record<string, string>>;
  /** Back to the policy the container started with (the next step's agent). */
  restoreNetwork?(): Promise<void>;
  /** Stops and removes everything (volumes and networks included). Idempotent. */
  teardown(): Promise<void>;
}

export type EnvironmentDefinition =
  | { kind: 'image'; image: string }
  | { kind: 'dockerfile'; contextDir: string; dockerfile: string }
  | {
      kind: 'compose';
      composeFile: string;
      mainBase: { image: string } | { context: string; dockerfile: string };
      /** The task's folder: what the compose file may bind and build from without consent. */
      taskDir: string;
    };

export interface StartOptions {
  definition: EnvironmentDefinition;
  config: EnvironmentConfig;
  rolloutId: string;
  phase: 'actor' | 'verifier';
  /** Label for warnings (`[environment]`, `[verifier.environment]`). */
  where: string;
  /** The policy the container starts with (the trial resolves Harbor's layers: network.ts). */
  network: NetworkPolicy;
  /** Container environment (already expanded). */
  env: Record<string, string>;
  user?: string;
  /** The user's consent to a compose file whose services get the host (docker/composeHostAccess.ts). */
  allowHostAccess: boolean;
  signal?: AbortSignal;
  log: (line: string) => void;
}

export async function startEnvironment(opts: StartOptions): Promise<TrialEnvironment> {
  const { config } = opts;
  const net = planNetwork(opts.network.mode, opts.network.hosts);
  const warnings: string[] = [];
  // What killed runs left (an allowlist's network among it) goes before anything new starts.
  await sweepOrphansOnce(opts.log);
  const buildTimeoutMs = config.build_timeout_sec * 1000;

  if (opts.definition.kind === 'compose') {
    for (const [key, value] of [
      ['storage_mb', config.storage_mb],
      ['gpus', config.gpus || undefined],
    ] as const) {
      if (value !== undefined)
        warnings.push(
          `${opts.where} ${key} = ${value} was not applied: Compose tasks set limits in docker-compose.yaml`,
        );
    }
    const allowlist = net.docker === 'allowlist';
    if (allowlist)
      await ensureImage(DEFAULT_IMAGE, { ...(opts.signal ? { signal: opts.signal } : {}), onLog: opts.log });
    const project = await ComposeProject.up({
      composeFile: opts.definition.composeFile,
      mainBase: opts.definition.mainBase,
      rolloutId: opts.rolloutId,
      phase: opts.phase,
      network: net.compose,
      ...(allowlist ? { egress: { image: DEFAULT_IMAGE } } : {}),
      keepMainAlive: true,
      allowHostAccess: opts.allowHostAccess,
      ownFolder: opts.definition.taskDir,
      mainEnv: opts.env,
      mainLimits: {
        ...(config.cpus !== undefined ? { cpus: config.cpus } : {}),
        ...(config.memory_mb !== undefined ? { memoryMb: config.memory_mb } : {}),
      },
      buildTimeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
      log: opts.log,
    });
    warnings.push(...project.prepared.warnings);
    const started = async (): Promise<ManagedContainer> => {
      const proxy = await project.egress();
      if (proxy) await serveEgress(proxy, { allowedHosts: net.allowedHosts, image: DEFAULT_IMAGE, log: opts.log });
      return project.service(MAIN_SERVICE);
    };
    const main = await started().catch(async (err: unknown) => {
      await project.down().catch(() => undefined);
      throw err;
    });
    return {
      substrate: {
        id: project.name,
        provider: 'compose',
        isolation: 'container',
        image: main.image,
        imageId: main.imageId,
        network: allowlist ? 'allowlist' : net.compose === 'internal' ? 'internal' : 'bridge',
      },
      warnings,
      services: project.services,
      service: (name) => project.service(name),
      teardown: () => project.down(),
    };
  }

  let image: string;
  let imageId: string | undefined;
  if (opts.definition.kind === 'dockerfile') {
    const built = await buildImage({
      contextDir: opts.definition.contextDir,
      dockerfile: opts.definition.dockerfile,
      timeoutMs: buildTimeoutMs,
      ...(opts.signal ? { signal: opts.signal } : {}),
      onLog: opts.log,
    });
    opts.log(built.cached ? `image ${built.tag} (cached)` : `built ${built.tag}`);
    image = built.tag;
    imageId = built.imageId;
  } else {
    image = opts.definition.image;
    // Harbor pulls a task's docker_image when the host does not have it.
    await ensureImage(image, { ...(opts.signal ? { signal: opts.signal } : {}), onLog: opts.log });
  }
  const egressOptions = {
    image: DEFAULT_IMAGE,
    rolloutId: opts.rolloutId,
    phase: opts.phase,
    ...(opts.signal ? { signal: opts.signal } : {}),
    log: opts.log,
  };
  const egress =
    net.docker === 'allowlist' ? await openEgress({ ...egressOptions, allowedHosts: net.allowedHosts }) : undefined;
  const made = createContainer({
    image,
    rolloutId: opts.rolloutId,
    phase: opts.phase,
    // The proxy's variables last: a task's own would point at nothing its network reaches.
    env: { ...opts.env, ...egress?.env },
    network: net.docker === 'bridge' ? 'bridge' : 'none',
    ...(egress ? { networkName: egress.network, dnsOptions: EGRESS_DNS_OPTIONS } : {}),
    // Without it, a fork bomb of the agent's takes every pid of the host (docs/security.md, "Exhaustion").
    pidsLimit: CONTAINER_PIDS_LIMIT,
    ...(config.workdir ? { workdir: config.workdir } : {}),
    ...(opts.user ? { user: opts.user } : {}),
    ...(config.cpus !== undefined ? { cpus: config.cpus } : {}),
    ...(config.memory_mb !== undefined ? { memoryMb: config.memory_mb } : {}),
    ...(config.storage_mb !== undefined ? { storageMb: config.storage_mb } : {}),
    ...(config.gpus > 0 ? { gpus: config.gpus } : {}),
  });
  const container = await made.catch(async (err: unknown) => {
    await egress?.close().catch(() => undefined);
    throw err;
  });
  warnings.push(...container.warnings);
  const network = new ContainerNetwork(container.id, { kind: net.docker, egress }, egressOptions);
  return {
    substrate: {
      id: container.id,
      provider: 'docker',
      isolation: 'container',
      image,
      imageId: imageId ?? container.imageId,
      network: container.network,
    },
    warnings,
    services: [MAIN_SERVICE],
    service: async (name) => {
      if (name !== MAIN_SERVICE) {
        throw new HudStudioError(
          'harbor-config',
          `service "${name}" does not exist: this task runs a single container`,
          { hint: `use service = "${MAIN_SERVICE}"` },
        );
      }
      return container;
    },
    setNetwork: (policy) => {
      const next = planNetwork(policy.mode, policy.hosts);
      return network.set(next.docker, next.allowedHosts);
    },
    restoreNetwork: () => network.restore(),
    teardown: async () => {
      // The task's container first: Docker removes no network a container is still on.
      try {
        await container.remove();
      } finally {
        await network.close();
      }
    },
  };
}
