/**
 * What in a task's own compose file reaches past its containers to the
 * machine it runs on (docs/security.md, "Compose files that reach the
 * host"): the Docker socket bound in (every container of the daemon, and
 * the host's root with them), a privileged service, the host's processes or
 * network, and any file of the host's outside the task's own folder that a
 * bind, an `env_file`, a build context, a secret or a config would hand the
 * task. Such a file runs only with the consent that `service_access` needs;
 * Harbor and the SDK run it as it is written.
 */
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { atOrBelow, normalContainerPath } from '../../../../common/containerPath';
import { HudStudioError } from '../errors';
import { isLocalDaemon } from './client';

/** Where daemons put their socket; a bind of either, or of a folder above one, hands the daemon over. */
const DOCKER_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];

export interface HostAccess {
  /** `service "main"`, `secret "db"`. */
  subject: string;
  /** Where in the file: `services.main.volumes`. */
  key: string;
  what: string;
  /** The Docker socket is among what it grants: refused on a remote daemon even with consent. */
  socket: boolean;
}

/** A host path as written, made absolute (`~` expanded), and where Docker will find it (links resolved). */
function hostPath(path: string, base: string): { abs: string; real: string; said: string } {
  const expanded = path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
  const abs = normalContainerPath(resolve(base, expanded));
  const real = existsSync(abs) ? normalContainerPath(realpathSync(abs)) : abs;
  return { abs, real, said: real === abs ? abs : `${abs} (${real})` };
}

/** The host path a `volumes` entry binds; undefined for a named volume, a tmpfs or anything unreadable. */
function bindSource(entry: unknown): string | undefined {
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
  // A name without a slash is a named volume; a path (absolute, relative, `~`) is a bind.
  return isAbsolute(source) || source.startsWith('.') || source.startsWith('~') ? source : undefined;
}

function envFiles(value: unknown): string[] {
  const items = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
  return items.flatMap((v) =>
    typeof v === 'string'
      ? [v]
      : v && typeof v === 'object' && typeof (v as { path?: unknown }).path === 'string'
        ? [(v as { path: string }).path]
        : [],
  );
}

function buildContext(build: unknown): string | undefined {
  const context = typeof build === 'string' ? build : (build as { context?: unknown } | null)?.context;
  // A git or http context is fetched by the daemon, not read from this machine.
  return typeof context === 'string' && !/^[a-z]+:\/\/|^git@/.test(context) ? context : undefined;
}

/**
 * `projectDirectory`: where the file's relative paths resolve; `ownFolders`:
 * the task's (the environment's folder, or a Harbor task's, and the compose
 * file's own), whose files are the author's and may go in.
 */
export function hostAccessIn(
  doc: { services: Record<string, Record<string, unknown>>; [key: string]: unknown },
  projectDirectory: string,
  ownFolders: readonly string[],
): HostAccess[] {
  const own = ownFolders.map((folder) => hostPath(folder, projectDirectory).real);
  const found: HostAccess[] = [];
  /** How to name a host path when it lies outside the task's folders. */
  const outside = (p: ReturnType<typeof hostPath>) =>
    own.some((folder) => atOrBelow(p.real, folder)) ? undefined : p.said;
  for (const [name, svc] of Object.entries(doc.services)) {
    const add = (key: string, what: string, socket = false) =>
      found.push({ subject: `service "${name}"`, key: `services.${name}.${key}`, what, socket });
    for (const entry of Array.isArray(svc['volumes']) ? (svc['volumes'] as unknown[]) : []) {
      const raw = bindSource(entry);
      if (raw === undefined) continue;
      const source = hostPath(raw, projectDirectory);
      const elsewhere = outside(source);
      if (DOCKER_SOCKETS.some((socket) => atOrBelow(socket, source.abs) || atOrBelow(socket, source.real)))
        add('volumes', `binds ${source.abs}, which holds the Docker socket`, true);
      else if (elsewhere) add('volumes', `binds the host's ${elsewhere}`);
    }
    for (const file of envFiles(svc['env_file'])) {
      const elsewhere = outside(hostPath(file, projectDirectory));
      if (elsewhere) add('env_file', `reads the host's ${elsewhere} into its environment`);
    }
    const context = buildContext(svc['build']);
    const contextDir = context === undefined ? undefined : outside(hostPath(context, projectDirectory));
    if (contextDir) add('build', `builds from the host's ${contextDir} (its files go into the image)`);
    if (svc['privileged'] === true) add('privileged', 'runs privileged (root on the host)');
    if (svc['pid'] === 'host') add('pid', "shares the host's processes (pid: host)");
    if (svc['network_mode'] === 'host') add('network_mode', "shares the host's network (network_mode: host)");
  }
  for (const kind of ['secrets', 'configs'] as const) {
    const table = doc[kind];
    if (!table || typeof table !== 'object') continue;
    for (const [name, spec] of Object.entries(table as Record<string, unknown>)) {
      const file = (spec as { file?: unknown } | null)?.file;
      const abs = typeof file === 'string' ? outside(hostPath(file, projectDirectory)) : undefined;
      if (abs)
        found.push({
          subject: `${kind.slice(0, -1)} "${name}"`,
          key: `${kind}.${name}.file`,
          what: `hands over the host's ${abs}`,
          socket: false,
        });
    }
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
  const said = (h: HostAccess) => `${h.subject} ${h.what}`;
  if (!consented) {
    throw new HudStudioError(
      'provider',
      `${composeFile}: ${found.map(said).join('; ')}. That reaches this machine, not just the task's containers, so it needs your explicit consent`,
      {
        location: { file: composeFile, key: first.key },
        hint: 'if you trust this task, allow service access for it; otherwise remove that setting from the compose file',
        fix: { kind: 'allow-service-access' },
      },
    );
  }
  const socket = found.find((h) => h.socket);
  if (socket && !isLocalDaemon(host)) {
    throw new HudStudioError(
      'provider',
      `${composeFile}: ${said(socket)}, which is refused for a remote Docker daemon: it would hand the task another machine's containers`,
      {
        location: { file: composeFile, key: socket.key },
        hint: 'run this task against a local daemon (unset DOCKER_HOST), or remove that mount',
      },
    );
  }
  return found.map((h) => `${said(h)} (consented: it reaches this machine)`);
}
