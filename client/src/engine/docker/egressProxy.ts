/**
 * A Harbor allowlist as Docker can enforce it (docs/harbor.md, "Allowlists"): the task's container joins an
 * internal network of its own, with no route anywhere and no address of the host's, and the only thing it
 * finds there is a proxy of the engine's (`runtime/python/hud_studio/egress.py`) in a container beside it.
 * That container is also on the rollout network, so it reaches the outside world; it carries a connection
 * only to a host the task's `allowed_hosts` names, and never to an address of this machine or of a private
 * network. Clients find it through the usual proxy variables (`HTTPS_PROXY` and friends), which the task's
 * container gets; a client that ignores them reaches nothing, so the allowlist fails closed.
 *
 * Each decision of the proxy reaches the phase's log: the first connection to each host, and every refusal.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../errors';
import { runtimePythonDir } from '../runtimePaths';
import { dockerClient, isLocalDaemon } from './client';
import { createContainer, ownerLabels } from './container';
import { ContainerError, dockerMessage, dockerStatus } from './errors';
import { streamLines } from '../output/streamLines';
import { ensureImage } from './pull';
import { NO_HOST_ADDRESS_OPTION } from './rolloutNetwork';
import { LABELS, type ManagedContainer, type RunningExec } from './types';

export const EGRESS_PORT = 3128;
/** The proxy's service in a Compose task's project (docker/composeFile.ts adds it; no task may name one so). */
export const EGRESS_SERVICE = 'hud-studio-egress';
/**
 * For a task's container on an allowlist's network: no name resolves there (the proxy resolves what it
 * carries), and Docker's resolver there never answers, so a client that looks a name up itself waited 20 s to
 * be told so. One try of one second each.
 */
export const EGRESS_DNS_OPTIONS = ['timeout:1', 'attempts:1'];
const READY_TIMEOUT_MS = 30_000;
/** The proxy's user: nobody, so nothing it runs could touch what the container's root holds. */
const PROXY_USER = '65534:65534';
/** Refusals logged one by one before the rest are only counted. */
const MAX_REFUSALS_LOGGED = 50;

export interface EgressOptions {
  allowedHosts: readonly string[];
  /** An image with python3 (the engine's base image). */
  image: string;
  rolloutId: string;
  phase: string;
  signal?: AbortSignal;
  log: (line: string) => void;
}

/** The way out one task container gets. */
export interface EgressRoute {
  /** The internal network the task's container joins instead of the rollout network. */
  readonly network: string;
  /** The proxy variables for the task's container. */
  readonly env: Record<string, string>;
  /** Removes the proxy and the network (after the task's container is gone). Idempotent. */
  close(): Promise<void>;
}

interface ProxyLine {
  event?: string;
  method?: string;
  host?: string;
  port?: number;
  status?: number;
  detail?: string;
}

let proxySource: string | undefined;

export async function openEgress(opts: EgressOptions): Promise<EgressRoute> {
  const docker = dockerClient();
  const name = `hud-studio-egress-${randomUUID().slice(0, 12)}`;
  const labels = { ...ownerLabels(opts), [LABELS.network]: 'egress' };
  let proxy: ManagedContainer | undefined;
  let running: RunningExec | undefined;
  let madeNetwork = false;
  const close = async (): Promise<void> => {
    await running?.kill('KILL').catch(() => undefined);
    await proxy?.remove();
    proxy = undefined;
    if (madeNetwork) await removeNetwork(name);
    madeNetwork = false;
  };
  try {
    await ensureImage(opts.image, { ...(opts.signal ? { signal: opts.signal } : {}), onLog: opts.log });
    await docker.createNetwork({
      Name: name,
      Driver: 'bridge',
      Internal: true,
      // No route out, and no address of the host's on its bridge: the proxy is all the task's container finds.
      Options: { [NO_HOST_ADDRESS_OPTION]: 'true' },
      Labels: labels,
    });
    madeNetwork = true;
    // On the rollout network (the outside world, no other container), then on the task's.
    proxy = await createContainer({
      image: opts.image,
      rolloutId: opts.rolloutId,
      phase: `${opts.phase}-egress`,
      network: 'public',
      pidsLimit: 256,
      memoryMb: 256,
      noNewPrivileges: true,
      extraLabels: { [LABELS.network]: 'egress' },
    });
    await docker.getNetwork(name).connect({ Container: proxy.id });
    const inspected = await docker.getContainer(proxy.id).inspect();
    const address = inspected.NetworkSettings.Networks[name]?.IPAddress;
    if (!address) throw new ContainerError(`the allowlist proxy got no address on its network ${name}`);
    running = await serveEgress(proxy, opts);
    return {
      network: name,
      env: proxyVariables(`http://${address}:${EGRESS_PORT}`),
      close,
    };
  } catch (err) {
    await close().catch(() => undefined);
    if (err instanceof ContainerError) throw err;
    throw new ContainerError(`could not start the allowlist proxy: ${errorMessage(err)}`, { cause: err });
  }
}

/**
 * The variables curl, pip, apt, git, npm and Python's urllib read, in both spellings; `direct`: names reached
 * without the proxy besides the loopback (a Compose task's services).
 */
export function proxyVariables(url: string, direct: readonly string[] = []): Record<string, string> {
  const local = ['localhost', '127.0.0.1', '::1', ...direct].join(',');
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    NO_PROXY: local,
    no_proxy: local,
  };
}

/**
 * The addresses of the machine the rollout runs on, which the proxy refuses besides private ranges: a public
 * address of this host reaches whatever listens on all its interfaces. Only when Docker runs here: a remote
 * daemon's host has addresses the engine cannot list.
 */
function hostAddresses(): string[] {
  if (!isLocalDaemon()) return [];
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .map((i) => i.address);
}

/**
 * Runs the proxy in `proxy` (a container of an image with python3, kept alive by a sleep), as nobody, its
 * decisions to `opts.log`; settles once it listens on {@link EGRESS_PORT}.
 */
export async function serveEgress(
  proxy: ManagedContainer,
  opts: Pick<EgressOptions, 'allowedHosts' | 'image' | 'log'>,
): Promise<RunningExec> {
  proxySource ??= readFileSync(join(runtimePythonDir(), 'hud_studio', 'egress.py'), 'utf8');
  const config = JSON.stringify({ allowed: opts.allowedHosts, blocked: hostAddresses(), port: EGRESS_PORT });
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const seen = new Set<string>();
  let refusals = 0;
  let stderr = '';
  const onLine = (line: string): void => {
    let said: ProxyLine;
    try {
      said = JSON.parse(line) as ProxyLine;
    } catch {
      opts.log(`allowlist proxy: ${line}`);
      return;
    }
    if (said.event === 'ready') ready();
    else if (said.event === 'allowed') {
      const target = printable(`${said.host}:${said.port}`);
      if (!seen.has(target)) opts.log(`allowlist: ${said.method === 'CONNECT' ? 'tunnel' : 'request'} to ${target}`);
      seen.add(target);
    } else if (said.event === 'refused') {
      refusals++;
      if (refusals <= MAX_REFUSALS_LOGGED) opts.log(`allowlist: refused (${said.status}): ${printable(said.detail)}`);
      else if (refusals === MAX_REFUSALS_LOGGED + 1) opts.log('allowlist: further refusals are not logged');
    }
  };
  const output = streamLines((stream, line) => {
    if (stream === 'stdout') onLine(line);
    else stderr = `${stderr}\n${line}`.slice(-4000);
  });
  const running = await proxy.spawn(['python3', '-c', proxySource, config], {
    user: PROXY_USER,
    onOutput: (stream, text) => output.onOutput(stream, text),
  });
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    isReady.then(() => 'ready' as const),
    running.done.then(() => 'ended' as const),
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), READY_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
  if (outcome === 'ready') {
    opts.log(`allowlist: only ${opts.allowedHosts.join(', ')} through HUD Studio's proxy`);
    return running;
  }
  await running.kill('KILL').catch(() => undefined);
  throw new ContainerError(
    outcome === 'timeout'
      ? `the allowlist proxy did not start within ${READY_TIMEOUT_MS / 1000} s`
      : `the allowlist proxy ended before it listened: ${stderr.trim() || 'no output'}`,
    { hint: `its image (${opts.image}) needs python3 3.9 or later` },
  );
}

/** The agent wrote what a refusal quotes: no control character of it reaches the log (a forged second line). */
function printable(text: string | undefined): string {
  return (text ?? '').replace(/[\u0000-\u001f\u007f]/g, '?');
}

async function removeNetwork(name: string): Promise<void> {
  try {
    await dockerClient().getNetwork(name).remove();
  } catch (err) {
    if (dockerStatus(err) !== 404)
      throw new ContainerError(`could not remove the allowlist network ${name}: ${dockerMessage(err)}`, {
        cause: err,
      });
  }
}
