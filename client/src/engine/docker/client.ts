/**
 * Docker endpoints. A run names its daemon explicitly (`--runtime docker`
 * with DOCKER_HOST, or the editor's `hudStudio.dockerHost`); nothing here
 * writes `process.env`, which the extension host shares with every other
 * extension. dockerode gets every connection option spelled out, so an
 * inherited DOCKER_HOST cannot override the endpoint a run asked for.
 *
 * The Docker layer below the providers asks {@link dockerClient} for "the
 * client of this run": {@link withDockerEndpoint} binds an endpoint to one
 * run's async context (see `docs/engine.md`, "Docker endpoint"), so two runs
 * on two daemons in one process never see each other's.
 *
 * It also says whether a daemon is local: a remote daemon must never get the
 * Docker socket mounted into a task (`docs/engine.md`, service access).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { dockerMessage } from './errors';

const DEFAULT_SOCKET = '/var/run/docker.sock';
const PING_TIMEOUT_MS = 5000;

export interface DockerEndpoint {
  /** As the docker CLI spells it: `unix:///var/run/docker.sock`, `tcp://127.0.0.1:2375`, `ssh://user@host`. */
  host: string;
  docker: Docker;
}

/** The variables the docker CLI reads besides DOCKER_HOST; read, never written. */
type DockerEnv = Readonly<Record<string, string | undefined>>;

class InvalidDockerHost extends Error {
  constructor(host: string) {
    super(`"${host}" is not a Docker host address (unix:///PATH, tcp://HOST:PORT or ssh://USER@HOST)`);
  }
}

const endpoints = new Map<string, DockerEndpoint>();
const bound = new AsyncLocalStorage<DockerEndpoint>();

/** DOCKER_HOST of this process (as it started), or the default unix socket. */
export function defaultDockerHost(env: DockerEnv = process.env): string {
  const host = env['DOCKER_HOST']?.trim();
  return host ? host : `unix://${DEFAULT_SOCKET}`;
}

/** dockerode's connection options for `host`, every field set so that none falls back to DOCKER_HOST. */
export function dockerodeOptions(host: string, env: DockerEnv = process.env): Docker.DockerOptions {
  if (host.startsWith('unix://') || host.startsWith('npipe://') || host.startsWith('/')) {
    const path = host.replace(/^(unix|npipe):\/\//, '') || DEFAULT_SOCKET;
    return { socketPath: path, host: undefined, port: undefined, protocol: 'http' };
  }
  let url: URL;
  try {
    url = new URL(host.includes('://') ? host : `tcp://${host}`);
  } catch {
    throw new InvalidDockerHost(host);
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol === 'ssh:') {
    return {
      protocol: 'ssh',
      host: hostname,
      port: url.port || 22,
      username: url.username,
      socketPath: undefined,
      sshOptions: { agent: env['SSH_AUTH_SOCK'] },
    } as Docker.DockerOptions;
  }
  const tls = env['DOCKER_TLS_VERIFY'] === '1' || url.port === '2376';
  const certs = tls && env['DOCKER_CERT_PATH'] ? readCerts(env['DOCKER_CERT_PATH']) : {};
  return {
    protocol: tls ? 'https' : 'http',
    host: hostname,
    port: url.port || (tls ? 2376 : 2375),
    socketPath: undefined,
    ...certs,
  };
}

function readCerts(dir: string): Pick<Docker.DockerOptions, 'ca' | 'cert' | 'key'> {
  return {
    ca: readFileSync(join(dir, 'ca.pem')),
    cert: readFileSync(join(dir, 'cert.pem')),
    key: readFileSync(join(dir, 'key.pem')),
  };
}

/** The client of `host` (one per host and process). */
export function dockerEndpoint(host: string = defaultDockerHost()): DockerEndpoint {
  let endpoint = endpoints.get(host);
  if (!endpoint) {
    endpoint = { host, docker: new Docker(dockerodeOptions(host)) };
    endpoints.set(host, endpoint);
  }
  return endpoint;
}

/** Runs `fn` with `host` as the Docker endpoint of everything it starts (undefined: this process's default). */
export function withDockerEndpoint<T>(host: string | undefined, fn: () => Promise<T>): Promise<T> {
  return bound.run(dockerEndpoint(host ?? defaultDockerHost()), fn);
}

function current(): DockerEndpoint {
  return bound.getStore() ?? dockerEndpoint();
}

/** The client of the endpoint bound to this run. */
export function dockerClient(): Docker {
  return current().docker;
}

/** The endpoint bound to this run, as the docker CLI (and Compose) take it in DOCKER_HOST. */
export function dockerHost(): string {
  return current().host;
}

/**
 * True for a unix socket / named pipe, or tcp:// to this machine. Anything
 * else (another host, ssh://) is remote.
 */
export function isLocalDaemon(host: string = dockerHost()): boolean {
  if (host.startsWith('unix://') || host.startsWith('npipe://') || host.startsWith('/')) return true;
  let url: URL;
  try {
    url = new URL(host.includes('://') ? host : `tcp://${host}`);
  } catch {
    return false;
  }
  if (url.protocol !== 'tcp:' && url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const name = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

export type DockerAvailability =
  { ok: true; host: string; version: string; apiVersion: string } | { ok: false; reason: string };

/** Asks the daemon at `host` (default: the bound endpoint) for its version; never throws. `reason` has the fix. */
export async function dockerAvailable(
  opts: { host?: string | undefined; timeoutMs?: number } = {},
): Promise<DockerAvailability> {
  const host = opts.host ?? dockerHost();
  const timeoutMs = opts.timeoutMs ?? PING_TIMEOUT_MS;
  try {
    const docker = dockerEndpoint(host).docker;
    // @types/dockerode omits version()'s options, which do take an abort signal.
    const version = docker.version.bind(docker) as unknown as (opts: {
      abortSignal: AbortSignal;
    }) => Promise<Docker.DockerVersion>;
    const v = await version({ abortSignal: AbortSignal.timeout(timeoutMs) });
    return { ok: true, host, version: v.Version, apiVersion: v.ApiVersion };
  } catch (err) {
    return { ok: false, reason: unavailableReason(host, err, timeoutMs) };
  }
}

function unavailableReason(host: string, err: unknown, timeoutMs: number): string {
  const code = (err as { code?: unknown } | null)?.code;
  const socket = host.startsWith('unix://') ? host.slice('unix://'.length) : undefined;
  const fix = socket
    ? 'start it (`sudo dockerd &` or `sudo systemctl start docker`), or install it with `sudo apt-get install docker.io`'
    : 'check that the daemon runs there and that the Docker host address is right';
  if (err instanceof InvalidDockerHost) return err.message;
  if (code === 'ENOENT') return `no Docker socket at ${socket ?? host}: the daemon is not running; ${fix}`;
  if (code === 'EACCES' || code === 'EPERM') {
    return `permission denied on ${socket ?? host}: add your user to the docker group (\`sudo usermod -aG docker $USER\`, then log in again)`;
  }
  if (code === 'ECONNREFUSED') return `nothing answers at ${host}; ${fix}`;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return `the daemon at ${host} did not answer within ${timeoutMs / 1000} s; ${fix}`;
  }
  return `the daemon at ${host} failed: ${dockerMessage(err)}; ${fix}`;
}
