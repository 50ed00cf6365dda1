/**
 * What the editor tells people about where rollouts run: the runtime string
 * the engine takes for a setting, and the texts for the cases that stop a
 * run (Restricted Mode, no Docker, no server address). Plain text, so the
 * wording is tested without VS Code.
 */
import type { Settings } from './settings';

export type RuntimePlan =
  | { ok: true; runtime: 'auto' | 'docker' | 'local' | `tcp://${string}` }
  | { ok: false; message: string; setting: string };

export function planRuntime(settings: Pick<Settings, 'runtime' | 'runtimeUrl'>): RuntimePlan {
  if (settings.runtime !== 'url') return { ok: true, runtime: settings.runtime };
  if (!settings.runtimeUrl) {
    return {
      ok: false,
      message:
        'hudStudio.runtime is "url" but hudStudio.runtimeUrl is empty: set it to the tcp://HOST:PORT your environment server printed (HUD_SERVE_PORT).',
      setting: 'hudStudio.runtimeUrl',
    };
  }
  return { ok: true, runtime: settings.runtimeUrl as `tcp://${string}` };
}

export const UNTRUSTED_MESSAGE =
  "Running tasks is disabled in Restricted Mode: a rollout executes this workspace's code. Trust the workspace to run it; indexing, CodeLens and diagnostics keep working meanwhile.";

export const USE_LOCAL = 'Use Local Runtime';
export const ALWAYS_LOCAL = 'Always Use Local Runtime';

/** Docker was asked for and did not answer: say why, how to fix it, and what else works. */
export function dockerMissing(reason: string, dockerHost: string): { message: string; detail: string } {
  const where = dockerHost ? `hudStudio.dockerHost (${dockerHost})` : 'DOCKER_HOST or /var/run/docker.sock';
  return {
    message: `Docker is not available: ${reason}`,
    detail: [
      'To fix it: install Docker (e.g. `apt-get install docker.io`) and start its daemon (`sudo systemctl start docker`),',
      `make sure this user may use it (the docker group), or point ${where} at a running daemon.`,
      `Or run on the local runtime instead (isolation by process only): "${USE_LOCAL}" for this run, "${ALWAYS_LOCAL}" for this workspace.`,
    ].join(' '),
  };
}
