/**
 * Finds the Compose CLI of this machine: `docker compose` (v2) when the
 * docker CLI has the plugin, else the standalone `docker-compose` (v1, all
 * Debian 12 ships). Probed once per process.
 */
import { HudStudioError } from '../errors';
import { runTool } from '../execa';

export interface ComposeCli {
  /** argv prefix, e.g. `['docker', 'compose']` or `['docker-compose']`. */
  argv: string[];
  version: string;
  major: 1 | 2;
}

let probe: Promise<ComposeCli> | undefined;

export function detectComposeCli(): Promise<ComposeCli> {
  probe ??= probeCompose().catch((err: unknown) => {
    probe = undefined; // let a later call retry after the user installs it
    throw err;
  });
  return probe;
}

async function probeCompose(): Promise<ComposeCli> {
  for (const argv of [['docker', 'compose'], ['docker-compose']]) {
    const r = await runTool([...argv, 'version', '--short'], {
      cwd: process.cwd(),
      env: composeEnv(false),
      timeoutMs: 15_000,
    });
    const version = r.stdout.trim().replace(/^v/, '');
    if (r.exitCode === 0 && /^\d+\.\d+/.test(version)) {
      return { argv, version, major: version.startsWith('1.') ? 1 : 2 };
    }
  }
  throw new HudStudioError(
    'provider',
    'Docker Compose is not installed: neither `docker compose` nor `docker-compose` works',
    {
      hint: 'install the Compose plugin (`sudo apt-get install docker-compose-plugin`) or v1 (`sudo apt-get install docker-compose`)',
    },
  );
}

/**
 * What the Compose CLI needs of this machine's environment to find its tools and reach the daemon: named one by
 * one, because CI systems keep credentials under `DOCKER_` names too (`DOCKER_AUTH_CONFIG`, `DOCKER_PASSWORD`).
 */
const COMPOSE_NEEDS: ReadonlySet<string> = new Set([
  ...['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TMPDIR', 'SSH_AUTH_SOCK'],
  ...['XDG_RUNTIME_DIR', 'XDG_CONFIG_HOME'],
  ...['DOCKER_HOST', 'DOCKER_CONTEXT', 'DOCKER_CONFIG', 'DOCKER_CERT_PATH', 'DOCKER_TLS_VERIFY'],
  ...['DOCKER_API_VERSION', 'DOCKER_BUILDKIT', 'DOCKER_DEFAULT_PLATFORM', 'DOCKER_CLIENT_TIMEOUT'],
  ...['COMPOSE_HTTP_TIMEOUT', 'COMPOSE_PARALLEL_LIMIT', 'COMPOSE_DOCKER_CLI_BUILD', 'COMPOSE_API_VERSION'],
]);

/**
 * The environment the Compose CLI runs with. Compose fills a file's `${VAR}`s, and bare `environment: [VAR]`
 * entries, from its own environment, so whatever it has a task's file can hand its containers: the user's keys,
 * the judge's `HUD_API_KEY`. Without the user's consent (`withHost`) it gets only what it needs to reach the
 * daemon (docs/security.md, "Compose files that reach the host"); the task's own `.env` still fills variables.
 */
export function composeEnv(withHost: boolean, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && (withHost || COMPOSE_NEEDS.has(k))) env[k] = v;
  return { ...env, ...extra };
}

/** Those of `names` that are set here and that Compose gets only with the user's consent, sorted. */
export function consentOnlyVariables(names: Iterable<string>): string[] {
  return [...new Set(names)].filter((n) => process.env[n] !== undefined && !COMPOSE_NEEDS.has(n)).sort();
}
