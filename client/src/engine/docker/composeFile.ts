/**
 * Turns a task's compose file into the one we run: services with `build`
 * are built through the Docker layer's content-hash cache (so a rerun never
 * rebuilds and never piles up per-project images) and then referenced by
 * tag; every service and the default network carry our labels; every
 * service gets a pids limit (./pidsLimit.ts); `main` is kept alive, under
 * Docker's init; an "internal" network lets services reach each other and
 * nothing else. The original file is never modified.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { NO_HOST_ADDRESS_OPTION } from './rolloutNetwork';
import { EGRESS_DNS_OPTIONS, EGRESS_PORT, EGRESS_SERVICE, proxyVariables } from './egressProxy';
import { HudStudioError } from '../errors';
import { buildImage } from './build';
import { composePidsLimit } from './pidsLimit';
import { dockerHost } from './client';
import { composeEnv, consentOnlyVariables } from './composeCli';
import { hostAccessIn, onceEach, variablesNamedIn, type ComposeDoc } from '../../../../common/compose/hostAccess';
import { checkHostAccess } from './composeHostAccess';
import { composeAsRun } from './composeResolved';
import { LABELS } from './types';

export const MAIN_SERVICE = 'main';
export const DOCKER_SOCKET = '/var/run/docker.sock';

export interface PrepareComposeOptions {
  composeFile: string;
  rolloutId: string;
  phase: string;
  /** `internal`: services reach each other, nothing outside the project. */
  network: 'default' | 'internal';
  /** Mount the Docker socket into `main` (service_access; caller has checked consent + local daemon). */
  mountDockerSocket?: boolean;
  /**
   * The user consented to give a task the host (service_access's consent): without it, a file whose own services
   * bind the Docker socket or host files outside the task's folders, run privileged or share the host's processes
   * or network is refused (composeHostAccess.ts).
   */
  allowHostAccess?: boolean;
  /** The task's folder, whose files the compose file may bind and build from, besides the file's own folder. */
  ownFolder?: string;
  /** Extra environment for `main` only. */
  mainEnv?: Record<string, string>;
  /** CPU / memory limits for `main` (the task.toml's [environment] limits). */
  mainLimits?: { cpus?: number; memoryMb?: number };
  /**
   * Harbor's base service for `main` (its image, or its build context relative
   * to the compose file's folder); the file's own `main` entries overlay it.
   */
  mainBase?: { image: string } | { context: string; dockerfile: string };
  /**
   * A Harbor allowlist (with `network: 'internal'`): the project gets HUD Studio's proxy as a service of its
   * own, from this image (docs/harbor.md, "Allowlists"); the engine starts the proxy in it.
   */
  egress?: { image: string };
  /** Replace main's command with `sleep infinity` when it has none (Harbor tasks exec into main). */
  keepMainAlive?: boolean;
  buildTimeoutMs?: number;
  signal?: AbortSignal;
  onLog?: (line: string) => void;
}

export interface PreparedCompose {
  /** The generated compose file (in a private temporary folder). */
  file: string;
  /** Where relative paths of the original file resolve. */
  projectDirectory: string;
  /** The task's services (not HUD Studio's proxy). */
  services: string[];
  /** The allowlist proxy's service, when the project has one. */
  egressService?: string;
  /** Image each service runs, after building. */
  images: Record<string, { image: string; imageId?: string; cached?: boolean }>;
  /**
   * What to say of the task's file: limits not kept as it wrote them (a pids limit above ours, or none), and host
   * access it was given by consent.
   */
  warnings: string[];
  /**
   * The environment every Compose command of this project runs with (composeCli.ts, `composeEnv`): the run's
   * Docker endpoint, and this machine's other variables only with the user's consent.
   */
  env: Record<string, string>;
  /** Deletes the generated file. */
  dispose(): void;
}

type ServiceDoc = Record<string, unknown> & {
  build?: unknown;
  image?: unknown;
  labels?: unknown;
  command?: unknown;
  volumes?: unknown;
  environment?: unknown;
};

export function composeLabels(rolloutId: string, phase: string): Record<string, string> {
  return {
    [LABELS.managed]: 'true',
    [LABELS.rollout]: rolloutId,
    [LABELS.phase]: phase,
    [LABELS.ownerHost]: hostname(),
    [LABELS.ownerPid]: String(process.pid),
  };
}

export async function prepareCompose(opts: PrepareComposeOptions): Promise<PreparedCompose> {
  const composeFile = resolve(opts.composeFile);
  const doc = await readComposeDoc(composeFile);
  const services = doc.services as Record<string, ServiceDoc>;
  if (opts.mainBase) services[MAIN_SERVICE] = overlayMain(opts.mainBase, services[MAIN_SERVICE]);
  const dir = mkdtempSync(join(tmpdir(), 'hud-studio-compose-'));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    return await prepareIn(dir, dispose, opts, composeFile, doc);
  } catch (err) {
    dispose();
    throw err;
  }
}

async function prepareIn(
  dir: string,
  dispose: () => void,
  opts: PrepareComposeOptions,
  composeFile: string,
  doc: ComposeDoc,
): Promise<PreparedCompose> {
  const projectDirectory = dirname(composeFile);
  const services = doc.services as Record<string, ServiceDoc>;
  if (!services[MAIN_SERVICE]) {
    throw new HudStudioError('harbor-config', `${composeFile} has no service named "${MAIN_SERVICE}"`, {
      location: { file: composeFile, key: 'services' },
      hint: `name the service the agent works in "${MAIN_SERVICE}"`,
    });
  }
  // The task's own services, before anything of ours (the socket of a consented service_access) is added: as
  // written, and as Compose will read them (composeResolved.ts).
  const ownFolders = [projectDirectory, ...(opts.ownFolder ? [opts.ownFolder] : [])];
  const consented = opts.allowHostAccess === true;
  // The run's Docker endpoint goes to Compose explicitly (docs/engine.md, "Docker endpoint").
  const env = composeEnv(consented, { DOCKER_HOST: dockerHost() });
  const asRun = await composeAsRun(composeFile, doc, projectDirectory, dir, env, opts.signal);
  const warnings = checkHostAccess(
    composeFile,
    onceEach([
      ...hostAccessIn(doc, projectDirectory, ownFolders),
      ...hostAccessIn(asRun, projectDirectory, ownFolders),
    ]),
    consented,
  );
  const named = consentOnlyVariables(variablesNamedIn(doc));
  if (named.length > 0)
    warnings.push(
      consented
        ? `the compose file gets this machine's ${named.join(', ')} (consented: it reaches this machine)`
        : `the compose file names this machine's ${named.join(', ')}: withheld, Compose fills them in blank (put a value the task needs in the .env beside the file, or allow service access)`,
    );
  const labels = composeLabels(opts.rolloutId, opts.phase);
  const images: PreparedCompose['images'] = {};
  for (const [name, svc] of Object.entries(services)) {
    if (svc.build !== undefined) {
      const { context, dockerfile } = buildSpec(svc.build, composeFile, name);
      const built = await buildImage({
        contextDir: resolve(projectDirectory, context),
        ...(dockerfile ? { dockerfile } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.buildTimeoutMs ? { timeoutMs: opts.buildTimeoutMs } : {}),
        onLog: (line) => opts.onLog?.(`[${name}] ${line}`),
      });
      delete svc.build;
      svc.image = built.tag;
      images[name] = { image: built.tag, imageId: built.imageId, cached: built.cached };
    } else if (typeof svc.image === 'string') {
      images[name] = { image: svc.image };
    } else {
      throw new HudStudioError('harbor-config', `service "${name}" in ${composeFile} has neither image nor build`, {
        location: { file: composeFile, key: `services.${name}` },
        hint: 'give it `build: <folder>` or `image: <name>`',
      });
    }
    svc.labels = { ...labelMap(svc.labels), ...labels };
    limitPids(name, svc, warnings);
  }

  const main = services[MAIN_SERVICE];
  if (opts.keepMainAlive && main.command === undefined) main.command = ['sleep', 'infinity'];
  // Docker's init as PID 1 reaps the agent's processes the engine kills after its turn (docs/security.md,
  // "Exhaustion"): a plain command there leaves them zombies, which keep their pids until the project goes, and
  // after a fork bomb the verifier could not start a process. A task whose image needs PID 1 says `init: false`.
  if (main.init === undefined) main.init = true;
  if (opts.mainEnv && Object.keys(opts.mainEnv).length > 0) main.environment = withEnv(main.environment, opts.mainEnv);
  if (opts.mainLimits?.cpus !== undefined) main.cpus = opts.mainLimits.cpus;
  if (opts.mainLimits?.memoryMb !== undefined) main.mem_limit = `${opts.mainLimits.memoryMb}m`;
  if (opts.mountDockerSocket)
    main.volumes = [
      ...(Array.isArray(main.volumes) ? (main.volumes as unknown[]) : []),
      `${DOCKER_SOCKET}:${DOCKER_SOCKET}`,
    ];

  const networks = (doc.networks ?? {}) as Record<string, Record<string, unknown> | null>;
  const defaultNet = { ...(networks.default ?? {}) };
  defaultNet.labels = { ...labelMap(defaultNet.labels), ...labels };
  networks.default = defaultNet;
  doc.networks = networks;
  // Per-service networks other than the default would escape `internal`; refuse rather than pretend.
  if (opts.network === 'internal') {
    // `back:` with nothing after it is a network of Docker's defaults, not internal: it is confined too.
    for (const [name, net] of Object.entries(networks)) confine((networks[name] = net ?? {}));
    for (const [name, svc] of Object.entries(services)) {
      if (svc.network_mode !== undefined) {
        throw new HudStudioError(
          'harbor-config',
          `service "${name}" sets network_mode, which cannot be confined for network_mode = "no-network"`,
          {
            location: { file: composeFile, key: `services.${name}.network_mode` },
            hint: 'remove network_mode from the service',
          },
        );
      }
    }
  }

  const taskServices = Object.keys(services);
  if (opts.egress) addEgress(services, networks, opts.egress.image, labels, composeFile);

  const file = join(dir, 'docker-compose.yaml');
  writeFileSync(file, stringify(doc), 'utf8');
  return {
    file,
    projectDirectory,
    services: taskServices,
    ...(opts.egress ? { egressService: EGRESS_SERVICE } : {}),
    images,
    warnings,
    env,
    dispose,
  };
}

/**
 * Sets the service's `pids_limit` (docs/security.md, "Exhaustion"): the
 * file's own when it is lower than ours, else ours. A limit the file gives in
 * `deploy.resources.limits.pids` is read too and set to the same value,
 * because Compose v2 refuses a file whose two limits differ.
 */
export function limitPids(name: string, svc: ServiceDoc, warnings: string[]): void {
  const deployLimits = objectAt(objectAt(objectAt(svc, 'deploy'), 'resources'), 'limits');
  const { limit, capped } = composePidsLimit(name, svc.pids_limit, deployLimits?.pids);
  svc.pids_limit = limit;
  if (deployLimits && deployLimits.pids !== undefined) deployLimits.pids = limit;
  if (capped) warnings.push(capped);
}

function objectAt(v: unknown, key: string): Record<string, unknown> | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const inner = (v as Record<string, unknown>)[key];
  return inner && typeof inner === 'object' && !Array.isArray(inner) ? (inner as Record<string, unknown>) : undefined;
}

/** The task's `main` entries win over the base's, key by key (as `docker compose -f base -f task` merges them). */
function overlayMain(
  base: NonNullable<PrepareComposeOptions['mainBase']>,
  own: ServiceDoc | null | undefined,
): ServiceDoc {
  const task = own && typeof own === 'object' ? own : {};
  const fromBase: ServiceDoc =
    'image' in base ? { image: base.image } : { build: { context: base.context, dockerfile: base.dockerfile } };
  // A task that names its own image or build replaces the base's way of getting one.
  if (task.image !== undefined || task.build !== undefined) return { ...task };
  return { ...fromBase, ...task };
}

async function readComposeDoc(composeFile: string): Promise<ComposeDoc> {
  let doc: unknown;
  try {
    doc = parse(await readFile(composeFile, 'utf8'));
  } catch (err) {
    const pos = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new HudStudioError(
      'harbor-config',
      `${composeFile} is not valid YAML: ${(err as Error).message.split('\n')[0]}`,
      {
        location: { file: composeFile, ...(pos ? { line: pos.line, column: pos.col } : {}) },
        hint: 'fix the YAML syntax',
        cause: err,
      },
    );
  }
  if (!doc || typeof doc !== 'object' || !('services' in doc) || !doc.services || typeof doc.services !== 'object') {
    throw new HudStudioError('harbor-config', `${composeFile} has no services`, {
      location: { file: composeFile },
      hint: 'a compose file needs a `services:` map with at least the "main" service',
    });
  }
  return doc as ComposeDoc;
}

function buildSpec(build: unknown, composeFile: string, service: string): { context: string; dockerfile?: string } {
  if (typeof build === 'string') return { context: build };
  if (build && typeof build === 'object') {
    const b = build as Record<string, unknown>;
    const unsupported = Object.keys(b).filter((k) => k !== 'context' && k !== 'dockerfile');
    if (unsupported.length > 0) {
      throw new HudStudioError(
        'harbor-config',
        `service "${service}" uses build.${unsupported[0]}, which HUD Studio does not support yet`,
        {
          location: { file: composeFile, key: `services.${service}.build.${unsupported[0]}` },
          hint: 'bake the values into the Dockerfile, or build the image yourself and use `image:`',
        },
      );
    }
    return {
      context: typeof b.context === 'string' ? b.context : '.',
      ...(typeof b.dockerfile === 'string' ? { dockerfile: b.dockerfile } : {}),
    };
  }
  throw new HudStudioError('harbor-config', `service "${service}" has an invalid build entry`, {
    location: { file: composeFile, key: `services.${service}.build` },
    hint: 'use `build: <folder>` or `build: {context, dockerfile}`',
  });
}

/** Adds variables in whichever form (list or map) the file used, keeping `KEY`-only (host pass-through) entries. */
function withEnv(v: unknown, add: Record<string, string>): unknown {
  if (Array.isArray(v)) {
    const kept = (v as unknown[]).filter((item) => !Object.hasOwn(add, String(item).split('=')[0]!));
    return [...kept, ...Object.entries(add).map(([k, x]) => `${k}=${x}`)];
  }
  return { ...(v && typeof v === 'object' ? v : {}), ...add };
}

/** Compose accepts labels as a map or as `KEY=VALUE` lines. */
function labelMap(v: unknown): Record<string, string> {
  if (Array.isArray(v)) {
    const out: Record<string, string> = {};
    for (const item of v) {
      const text = String(item);
      const eq = text.indexOf('=');
      if (eq > 0) out[text.slice(0, eq)] = text.slice(eq + 1);
    }
    return out;
  }
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, labelText(x)]));
  }
  return {};
}

/** A label value as compose writes it: scalars as text, anything nested as JSON rather than `[object Object]`. */
function labelText(x: unknown): string {
  if (x === null || x === undefined) return '';
  if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' || typeof x === 'bigint')
    return String(x);
  return JSON.stringify(x) ?? '';
}

/**
 * An `internal` network has no route out, but Docker still gives the host an address on its bridge, and a
 * container reaches the host's own services there and at any other address of the host (docs/security.md,
 * "Rollouts cannot reach each other"). Without that address it reaches only the project's services.
 */
function confine(net: Record<string, unknown>): void {
  net.internal = true;
  if (!net.external && (net.driver === undefined || net.driver === 'bridge'))
    net.driver_opts = { ...labelMap(net.driver_opts), [NO_HOST_ADDRESS_OPTION]: 'true' };
}

/**
 * A Compose task's allowlist: the proxy's service joins every network of `main` (internal ones, see
 * {@link confine}) and one of its own that reaches out, and `main` gets the proxy's variables, with the
 * project's services reached directly. Other services keep no way out, as before.
 */
function addEgress(
  services: Record<string, ServiceDoc>,
  networks: Record<string, Record<string, unknown> | null>,
  image: string,
  labels: Record<string, string>,
  composeFile: string,
): void {
  if (services[EGRESS_SERVICE])
    throw new HudStudioError(
      'harbor-config',
      `${composeFile} has a service named "${EGRESS_SERVICE}", the name of HUD Studio's allowlist proxy`,
      { location: { file: composeFile, key: `services.${EGRESS_SERVICE}` }, hint: 'give the service another name' },
    );
  const main = services[MAIN_SERVICE]!;
  const out = `${EGRESS_SERVICE}-out`;
  networks[out] = { labels };
  services[EGRESS_SERVICE] = {
    image,
    command: ['sleep', 'infinity'],
    init: true,
    labels,
    networks: [...networkNames(main.networks), out],
    pids_limit: 256,
    security_opt: ['no-new-privileges:true'],
  };
  const direct = Object.keys(services).filter((name) => name !== EGRESS_SERVICE);
  main.environment = withEnv(main.environment, proxyVariables(`http://${EGRESS_SERVICE}:${EGRESS_PORT}`, direct));
  const own = main.dns_opt === undefined ? [] : Array.isArray(main.dns_opt) ? main.dns_opt : [main.dns_opt];
  main.dns_opt = [...(own as unknown[]), ...EGRESS_DNS_OPTIONS];
}

/** The networks a service joins: the list's names, the map's keys, or the project's default. */
function networkNames(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (v && typeof v === 'object') return Object.keys(v);
  return ['default'];
}
