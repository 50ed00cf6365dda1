/**
 * The one dockerode connection of this process. It honours DOCKER_HOST the
 * way the docker CLI does (unix socket by default, tcp:// allowed), and says
 * whether the daemon is local: a remote daemon must never get the Docker
 * socket mounted into a task (docs/hud-protocol.md, service_access).
 */
import Docker from 'dockerode';
import { DockerUnavailableError, dockerMessage } from './errors';

const DEFAULT_SOCKET = '/var/run/docker.sock';
const PING_TIMEOUT_MS = 5000;

let cached: { host: string; docker: Docker } | undefined;

/** DOCKER_HOST as the user set it, or the default unix socket. */
export function dockerHost(): string {
  const env = process.env.DOCKER_HOST?.trim();
  return env ? env : `unix://${DEFAULT_SOCKET}`;
}

/** The shared client; recreated when DOCKER_HOST changes (tests, settings). */
export function dockerClient(): Docker {
  const host = dockerHost();
  if (cached?.host !== host) {
    // docker-modem reads DOCKER_HOST (and DOCKER_TLS_VERIFY / DOCKER_CERT_PATH) itself.
    cached = { host, docker: new Docker() };
  }
  return cached.docker;
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

export type DockerAvailability = { ok: true; host: string; version: string; apiVersion: string } | { ok: false; reason: string };

/** Asks the daemon for its version; never throws. `reason` says how to fix it. */
export async function dockerAvailable(timeoutMs = PING_TIMEOUT_MS): Promise<DockerAvailability> {
  const host = dockerHost();
  try {
    const docker = dockerClient();
    // @types/dockerode omits version()'s options, which do take an abort signal.
    const version = docker.version.bind(docker) as unknown as (opts: {
      abortSignal: AbortSignal;
    }) => Promise<Docker.DockerVersion>;
    const v = await version({ abortSignal: AbortSignal.timeout(timeoutMs) });
    return { ok: true, host, version: v.Version, apiVersion: v.ApiVersion };
  } catch (err) {
    return { ok: false, reason: unavailableReason(host, err) };
  }
}

/** Throws {@link DockerUnavailableError} unless a daemon answers. */
export async function requireDocker(): Promise<{ host: string; version: string }> {
  const a = await dockerAvailable();
  if (!a.ok) throw new DockerUnavailableError(a.reason);
  return a;
}

function unavailableReason(host: string, err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const socket = host.startsWith('unix://') ? host.slice('unix://'.length) : undefined;
  const fix = socket
    ? 'start it (`sudo dockerd &` or `sudo systemctl start docker`), or install it with `sudo apt-get install docker.io`'
    : 'check that the daemon runs there and that DOCKER_HOST is right, or unset DOCKER_HOST to use the local socket';
  if (code === 'ENOENT') return `no Docker socket at ${socket ?? host}: the daemon is not running; ${fix}`;
  if (code === 'EACCES' || code === 'EPERM') {
    return `permission denied on ${socket ?? host}: add your user to the docker group (\`sudo usermod -aG docker $USER\`, then log in again)`;
  }
  if (code === 'ECONNREFUSED') return `nothing answers at ${host}; ${fix}`;
  if (err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError')) {
    return `the daemon at ${host} did not answer within ${PING_TIMEOUT_MS / 1000} s; ${fix}`;
  }
  return `the daemon at ${host} failed: ${dockerMessage(err)}; ${fix}`;
}
