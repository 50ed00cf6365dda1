/**
 * What in a task's own compose file hands a service the machine it runs on
 * (docs/security.md, "Compose files that reach the host"): the Docker
 * socket bound in (so every container of the daemon, the host's root with
 * them), a privileged service, or the host's processes or network. Such a
 * file runs only with the consent that `service_access` needs; Harbor and
 * the SDK run it as it is written.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { atOrBelow, normalContainerPath } from '../../../../common/containerPath';
import { HudStudioError } from '../errors';
import { isLocalDaemon } from './client';

/** Where daemons put their socket; a bind of either, or of a folder above one, hands the daemon over. */
const DOCKER_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];

export interface HostAccess {
  service: string;
  /** The service's key that grants it (`volumes`, `privileged`, `pid`, `network_mode`). */
  key: string;
  what: string;
  /** The Docker socket is among what it grants: refused on a remote daemon even with consent. */
  socket: boolean;
}

/** The host path a `volumes` entry binds, or undefined for a named volume, a tmpfs or anything unreadable. */
function bindSource(entry: unknown, projectDirectory: string): string | undefined {
  let source: unknown;
  if (typeof entry === 'string') {
    // SOURCE:TARGET[:MODE]; a lone TARGET is an anonymous volume.
    const parts = entry.split(':');
    source = parts.length > 1 ? parts[0] : undefined;
  } else if (entry !== null && typeof entry === 'object') {
    const long = entry as { type?: unknown; source?: unknown };
    source = long.type === 'bind' ? long.source : undefined;
  }
  if (typeof source !== 'string' || source === '') return undefined;
  if (source === '~' || source.startsWith('~/')) return normalContainerPath(homedir() + source.slice(1));
  // A name without a slash is a named volume; a relative path is a bind relative to the file's folder.
  if (!isAbsolute(source) && !source.startsWith('.')) return undefined;
  return normalContainerPath(resolve(projectDirectory, source));
}

export function hostAccessIn(
  services: Record<string, Record<string, unknown>>,
  projectDirectory: string,
): HostAccess[] {
  const found: HostAccess[] = [];
  for (const [service, svc] of Object.entries(services)) {
    for (const entry of Array.isArray(svc['volumes']) ? (svc['volumes'] as unknown[]) : []) {
      const source = bindSource(entry, projectDirectory);
      if (source !== undefined && DOCKER_SOCKETS.some((socket) => atOrBelow(socket, source)))
        found.push({ service, key: 'volumes', what: `binds ${source}, which holds the Docker socket`, socket: true });
    }
    if (svc['privileged'] === true)
      found.push({ service, key: 'privileged', what: 'runs privileged (root on the host)', socket: false });
    if (svc['pid'] === 'host')
      found.push({ service, key: 'pid', what: "shares the host's processes (pid: host)", socket: false });
    if (svc['network_mode'] === 'host')
      found.push({
        service,
        key: 'network_mode',
        what: "shares the host's network (network_mode: host)",
        socket: false,
      });
  }
  return found;
}

/**
 * Refuses a compose file that reaches the host unless the user consented;
 * with consent, the warnings to log. The Docker socket stays refused on a
 * remote daemon, as for service_access: it would be another machine's.
 */
export function checkHostAccess(
  composeFile: string,
  found: readonly HostAccess[],
  consented: boolean,
  host?: string,
): string[] {
  const first = found[0];
  if (!first) return [];
  const where = (h: HostAccess) => `service "${h.service}" ${h.what}`;
  if (!consented) {
    throw new HudStudioError(
      'provider',
      `${composeFile}: ${found.map(where).join('; ')}. Code there controls this machine, not just its container, so it needs your explicit consent`,
      {
        location: { file: composeFile, key: `services.${first.service}.${first.key}` },
        hint: 'if you trust this task, allow service access for it; otherwise remove that setting from the compose file',
        fix: { kind: 'allow-service-access' },
      },
    );
  }
  const socket = found.find((h) => h.socket);
  if (socket && !isLocalDaemon(host)) {
    throw new HudStudioError(
      'provider',
      `${composeFile}: service "${socket.service}" ${socket.what}, which is refused for a remote Docker daemon: it would hand the task another machine's containers`,
      {
        location: { file: composeFile, key: `services.${socket.service}.volumes` },
        hint: 'run this task against a local daemon (unset DOCKER_HOST), or remove that mount',
      },
    );
  }
  return found.map((h) => `${where(h)} (consented: it controls this machine)`);
}
