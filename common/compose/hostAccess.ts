/**
 * What in a task's own compose file reaches past its containers to the
 * machine it runs on (docs/security.md, "Compose files that reach the
 * host"): the Docker socket bound in (every container of the daemon, and
 * the host's root with them); any file or device of the host's outside the
 * task's own folder that a bind, a volume's device, an `env_file`, a build
 * context, a secret or a config would hand the task; a privileged service,
 * capabilities and `security_opt`s that open the host's kernel; the
 * namespaces of the host or of containers not the task's, Docker's default
 * network and networks made outside the task. Such a file runs only with
 * the consent that `service_access` needs; Harbor and the SDK run it as it
 * is written. Also the variables the file asks Compose for, which Compose
 * gets only with that consent (the engine's docker/composeCli.ts).
 *
 * Shared by the engine, which refuses such a file at the run's start, and
 * the language server, which says so in the editor and in `check`.
 */
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { atOrBelow, normalContainerPath } from '../containerPath';

/** Where daemons put their socket; a bind of either, or of a folder above one, hands the daemon over. */
const DOCKER_SOCKETS = ['/var/run/docker.sock', '/run/docker.sock'];

/** A compose file's top level, as far as these readers need it. */
export type ComposeDoc = { services: Record<string, Record<string, unknown>>; [key: string]: unknown };

export interface HostAccess {
  /** `service "main"`, `secret "db"`. */
  subject: string;
  /** Where in the file: `['services', 'main', 'volumes']`. */
  path: readonly string[];
  what: string;
  /** The Docker socket is among what it grants: refused on a remote daemon even with consent. */
  socket: boolean;
}

/** Where `path` leads with its links resolved; itself when it does not exist (yet) or cannot be followed. */
function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A host path as written, made absolute (`~` expanded), and where Docker will find it (links resolved). */
function hostPath(path: string, base: string): { abs: string; real: string; said: string } {
  const expanded = path === '~' || path.startsWith('~/') ? homedir() + path.slice(1) : path;
  const abs = normalContainerPath(resolve(base, expanded));
  const real = normalContainerPath(realOrSame(abs));
  return { abs, real, said: real === abs ? abs : `${abs} (${real})` };
}

/** A key that takes one entry or a list of them, as a list. */
function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : value === undefined || value === null ? [] : [value];
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
  return list(value).flatMap((v) =>
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

/** Capabilities whose holder reaches past its own container to the host's kernel, devices, files or clock. */
const HOST_CAPABILITIES: ReadonlyMap<string, string> = new Map([
  ['ALL', 'every capability'],
  ['SYS_ADMIN', 'mounts, and the known ways out of a container they open'],
  ['SYS_MODULE', "loads modules into the host's kernel"],
  ['SYS_RAWIO', 'raw access to devices and memory'],
  ['DAC_READ_SEARCH', "opens host files by handle, past the container's root"],
  ['SYS_BOOT', 'reboots the host'],
  ['SYS_TIME', "sets the host's clock"],
  ['SYSLOG', "reads the host's kernel log"],
  ['BPF', "loads programs into the host's kernel"],
  ['PERFMON', "observes the host's processes"],
  ['MAC_ADMIN', "changes the host's security policy"],
  ['MAC_OVERRIDE', "overrides the host's security policy"],
]);

/** The namespace keys, and what sharing the host's (or another container's) hands over. */
const NAMESPACES: readonly (readonly [key: string, what: string])[] = [
  ['pid', 'processes'],
  ['ipc', 'shared memory'],
  ['network_mode', 'network'],
  ['userns_mode', "user namespace (its root is the host's root)"],
  ['cgroup', 'control groups'],
];

/** `security_opt` entries that turn off one of Docker's confinements; written `name:value` or `name=value`. */
const UNCONFINED: readonly (readonly [option: RegExp, what: string])[] = [
  [/^seccomp[:=]unconfined$/, "turns off Docker's system-call filter"],
  [/^apparmor[:=]unconfined$/, 'turns off its AppArmor profile'],
  [/^label[:=]disable$/, 'turns off its SELinux labels'],
  [/^systempaths[:=]unconfined$/, "unmasks the kernel's /proc and /sys settings of the host"],
];

/** A device entry's host side: `SOURCE[:TARGET[:PERMS]]`, or the long syntax Compose v2 writes. */
function deviceSource(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry.split(':')[0] || undefined;
  const source = (entry as { source?: unknown } | null)?.source;
  return typeof source === 'string' ? source : undefined;
}

/**
 * `projectDirectory`: where the file's relative paths resolve; `ownFolders`:
 * the task's (the environment's folder, or a Harbor task's, and the compose
 * file's own), whose files are the author's and may go in. Judge the file
 * as Compose reads it too (the engine's docker/composeResolved.ts):
 * variables, merge keys and `extends` are Compose's to expand.
 */
export function hostAccessIn(doc: ComposeDoc, projectDirectory: string, ownFolders: readonly string[]): HostAccess[] {
  const own = ownFolders.map((folder) => hostPath(folder, projectDirectory).real);
  const found: HostAccess[] = [];
  /** How to name a host path when it lies outside the task's folders. */
  const outside = (p: ReturnType<typeof hostPath>) =>
    own.some((folder) => atOrBelow(p.real, folder)) ? undefined : p.said;
  /** A host folder or file mounted into a container: the socket, or anything outside the task's folders. */
  const mounted = (raw: string, add: (what: string, socket?: boolean) => void) => {
    const source = hostPath(raw, projectDirectory);
    const elsewhere = outside(source);
    if (DOCKER_SOCKETS.some((socket) => atOrBelow(socket, source.abs) || atOrBelow(socket, source.real)))
      add(`binds ${source.abs}, which holds the Docker socket`, true);
    else if (elsewhere) add(`binds the host's ${elsewhere}`);
  };
  for (const [name, svc] of Object.entries(doc.services)) {
    const at =
      (key: string) =>
      (what: string, socket = false) =>
        found.push({ subject: `service "${name}"`, path: ['services', name, key], what, socket });
    for (const entry of list(svc['volumes'])) {
      const raw = bindSource(entry);
      if (raw !== undefined) mounted(raw, at('volumes'));
    }
    for (const file of envFiles(svc['env_file'])) {
      const elsewhere = file.includes('$') ? file : outside(hostPath(file, projectDirectory));
      if (elsewhere) at('env_file')(`reads the host's ${elsewhere} into its environment`);
    }
    const context = buildContext(svc['build']);
    const contextDir = context === undefined ? undefined : outside(hostPath(context, projectDirectory));
    if (contextDir) at('build')(`builds from the host's ${contextDir} (its files go into the image)`);
    if (svc['privileged'] === true || svc['privileged'] === 'true')
      at('privileged')('runs privileged (root on the host)');
    for (const [key, what] of NAMESPACES) {
      const mode = svc[key];
      if (mode === 'host') at(key)(`shares the host's ${what} (${key}: host)`);
      else if (key === 'network_mode' && mode === 'bridge')
        at(key)("joins Docker's default network, where the user's own containers are (network_mode: bridge)");
      else if (typeof mode === 'string' && mode.startsWith('container:'))
        at(key)(`joins the ${what} of ${mode.slice('container:'.length)}, a container outside the task`);
    }
    for (const entry of list(svc['volumes_from'])) {
      if (typeof entry === 'string' && entry.startsWith('container:'))
        at('volumes_from')(`mounts the volumes of ${entry.split(':')[1]}, a container outside the task`);
    }
    for (const cap of list(svc['cap_add'])) {
      const plain = String(cap).toUpperCase().replace(/^CAP_/, '');
      const what = HOST_CAPABILITIES.get(plain);
      if (what) at('cap_add')(`adds the capability ${plain} (${what})`);
    }
    for (const entry of list(svc['devices'])) {
      const device = deviceSource(entry);
      if (device) at('devices')(`hands over the host's device ${device}`);
    }
    if (list(svc['device_cgroup_rules']).length > 0)
      at('device_cgroup_rules')("may use the host's devices (device_cgroup_rules)");
    for (const option of list(svc['security_opt'])) {
      const text = String(option).replace(/\s+/g, '');
      const rule = UNCONFINED.find(([pattern]) => pattern.test(text));
      if (rule) at('security_opt')(`${rule[1]} (${text})`);
    }
  }
  const table = (kind: string) => Object.entries((doc[kind] ?? {}) as Record<string, unknown>);
  for (const kind of ['secrets', 'configs'] as const) {
    for (const [name, spec] of table(kind)) {
      const file = (spec as { file?: unknown } | null)?.file;
      const abs = typeof file === 'string' ? outside(hostPath(file, projectDirectory)) : undefined;
      if (abs)
        found.push({
          subject: `${kind.slice(0, -1)} "${name}"`,
          path: [kind, name, 'file'],
          what: `hands over the host's ${abs}`,
          socket: false,
        });
    }
  }
  for (const [name, spec] of table('networks')) {
    const { external, name: own } = (spec ?? {}) as { external?: unknown; name?: unknown };
    if (external === true || (external && typeof external === 'object')) {
      // Compose's older form names the network inside `external`.
      const legacy = (external as { name?: unknown }).name;
      const called = typeof own === 'string' ? own : typeof legacy === 'string' ? legacy : name;
      found.push({
        subject: `network "${name}"`,
        path: ['networks', name, 'external'],
        what: `joins the existing network ${called}, whose containers are not the task's`,
        socket: false,
      });
    }
  }
  // A named volume of the local driver with a `device` mounts that host path (or disk) like a bind.
  for (const [name, spec] of table('volumes')) {
    const device = (spec as { driver_opts?: { device?: unknown } } | null)?.driver_opts?.device;
    if (typeof device === 'string' && /^[/.~]/.test(device))
      mounted(device, (what, socket = false) =>
        found.push({ subject: `volume "${name}"`, path: ['volumes', name, 'driver_opts'], what, socket }),
      );
  }
  return found;
}

const INTERPOLATED = /\$(?:\{([A-Za-z_]\w*)|([A-Za-z_]\w*))/g;

/**
 * The variables a compose file asks Compose for: every `${VAR}` or `$VAR` in a value (`$$` is a literal `$`),
 * each service's bare `environment` entries (`- VAR`, `VAR:` with no value), which Compose copies from its own
 * environment, and the variables secrets and configs are read from (`environment: VAR`).
 */
export function variablesNamedIn(doc: ComposeDoc): string[] {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const m of value.replaceAll('$$', '').matchAll(INTERPOLATED)) names.add((m[1] ?? m[2])!);
    } else if (value && typeof value === 'object') for (const v of Object.values(value)) walk(v);
  };
  walk(doc);
  for (const svc of Object.values(doc.services)) {
    const env = svc['environment'];
    if (Array.isArray(env)) {
      for (const entry of env) if (typeof entry === 'string' && !entry.includes('=')) names.add(entry.trim());
    } else if (env && typeof env === 'object') {
      for (const [name, v] of Object.entries(env)) if (v === null || v === undefined) names.add(name);
    }
  }
  for (const kind of ['secrets', 'configs']) {
    for (const spec of Object.values((doc[kind] ?? {}) as Record<string, unknown>)) {
      const from = (spec as { environment?: unknown } | null)?.environment;
      if (typeof from === 'string') names.add(from);
    }
  }
  return [...names];
}

/** Each finding once: the file as written and as Compose reads it mostly say the same. */
export function onceEach(found: readonly HostAccess[]): HostAccess[] {
  const seen = new Set<string>();
  return found.filter((h) => {
    const id = `${h.path.join('\0')}\0${h.what}`;
    return !seen.has(id) && (seen.add(id), true);
  });
}
