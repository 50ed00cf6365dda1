/**
 * Picks the provider for `--runtime auto|docker|local|tcp://HOST:PORT`.
 * The Docker provider is imported lazily so that the Local path never loads
 * dockerode. `auto` uses Docker when a daemon answers, else Local, and says
 * which one and why in one line.
 */
import { HudStudioError, UsageError } from '../errors';
import { LocalProvider } from './local';
import type { Provider } from './provider';
import { UrlProvider } from './url';

export type RuntimeChoice = 'auto' | 'docker' | 'local' | `tcp://${string}`;

export interface SelectedProvider {
  provider: Provider;
  /** One line for the user: which runtime and why (auto), or undefined. */
  notice: string | undefined;
  /** The Docker host the daemon answered on, when Docker was chosen. */
  dockerHost?: string;
}

export interface SelectOptions {
  /**
   * The user explicitly allowed `runtime_config.compose.service_access`
   * (the Docker socket mounted into the compose project's `main` service).
   */
  serviceAccess?: boolean;
  /** The Docker endpoint to probe and use; default this process's DOCKER_HOST (or the local socket). */
  dockerHost?: string | undefined;
}

export function parseRuntime(text: string): RuntimeChoice {
  if (text === 'auto' || text === 'docker' || text === 'local') return text;
  if (text.startsWith('tcp://')) return text as RuntimeChoice;
  throw new UsageError(`unknown runtime "${text}"`, { hint: 'use auto, docker, local or tcp://HOST:PORT' });
}

export async function selectProvider(runtime: string, opts: SelectOptions = {}): Promise<SelectedProvider> {
  const choice = parseRuntime(runtime);
  if (choice === 'local') return { provider: new LocalProvider(), notice: undefined };
  if (choice.startsWith('tcp://')) return { provider: new UrlProvider(choice), notice: undefined };

  const docker = await loadDocker(opts.serviceAccess === true, opts.dockerHost);
  if (choice === 'docker') {
    if (!docker.ok)
      throw new HudStudioError('docker-unavailable', `Docker is not available: ${docker.reason}`, {
        hint: 'start the Docker daemon, or run on the local runtime',
        fix: { kind: 'runtime', use: 'local' },
      });
    return { provider: docker.provider, notice: undefined, dockerHost: docker.host };
  }
  if (docker.ok) {
    return {
      provider: docker.provider,
      notice: `runtime: docker (daemon answered at ${docker.host})`,
      dockerHost: docker.host,
    };
  }
  return {
    provider: new LocalProvider(),
    notice: `runtime: local (no Docker: ${docker.reason}); isolation is by process only`,
  };
}

type DockerProbe = { ok: true; provider: Provider; host: string } | { ok: false; reason: string };

async function loadDocker(serviceAccess: boolean, host: string | undefined): Promise<DockerProbe> {
  let mod: typeof import('./docker');
  let compose: typeof import('./compose');
  try {
    mod = await import('./docker');
    compose = await import('./compose');
  } catch (err) {
    return { ok: false, reason: `the Docker provider could not be loaded (${(err as Error).message})` };
  }
  const probe = await mod.dockerAvailable({ host: host ?? mod.defaultDockerHost() });
  if (!probe.ok) return probe;
  // Tasks whose runtime_config names a compose project go to Compose; the rest to plain containers.
  const provider = new compose.ComposeAwareProvider(new mod.DockerProvider(), { consent: { serviceAccess } });
  return { ok: true, provider, host: probe.host };
}
