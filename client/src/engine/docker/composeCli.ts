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
    const r = await runTool([...argv, 'version', '--short'], { cwd: process.cwd(), env: hostEnv(), timeoutMs: 15_000 });
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

/** The host environment as plain strings (the Compose CLI needs PATH, HOME, DOCKER_*). */
export function hostEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return { ...env, ...extra };
}
