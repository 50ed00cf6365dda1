/**
 * The pids limit of every container a rollout runs in (docs/security.md,
 * "Exhaustion"): HUD actor and verifier containers, single-container Harbor
 * tasks, and every service of a Compose project (Harbor tasks with a
 * docker-compose.yaml, env.py tasks through the Compose provider). Without
 * one, a fork bomb in any of them takes pids until the host's own limit
 * (`kernel.pid_max`, 32768 on many machines), and then nothing on the host
 * starts a process: not the verifier, not another rollout, not the user's
 * shell.
 */

/**
 * Processes and threads one container may hold (its cgroup's `pids.max`).
 * Harbor tasks build and test code inside their container (`make -j`,
 * `pytest -n`, a JVM's threads), which a few hundred pids serve even on a
 * large machine, so 4096 leaves a task ample room; and it is four times the
 * agent's own process limit on the HUD Docker seat (providers/agentLimits.ts),
 * so the environment's server and the engine's execs keep room there when the
 * agent has used all of its. Eight containers filled to it stay within a
 * 32768 pid_max.
 */
export const CONTAINER_PIDS_LIMIT = 4096;

/** The `pids_limit` a Compose service gets, and why it differs from what the file asked for. */
export interface ComposePidsLimit {
  limit: number;
  /** Set when the file asked for more than {@link CONTAINER_PIDS_LIMIT}, or for no limit. */
  capped?: string;
}

/**
 * Reads a limit a compose file gives (`pids_limit`, `deploy.resources.limits.pids`):
 * a positive number is a limit, 0 or -1 (Docker's "unlimited") is none, and
 * anything else is not a limit at all (undefined).
 */
function composeValue(v: unknown): number | 'unlimited' | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isInteger(n)) return undefined;
  return n > 0 ? n : n === 0 || n === -1 ? 'unlimited' : undefined;
}

/**
 * A service's limit: the lower of the file's own and ours, so a task that
 * wants fewer pids keeps its limit; a task that asks for more, or for none,
 * gets ours, and `capped` says so (the limit protects the host, which a task
 * does not get to decide about).
 */
export function composePidsLimit(service: string, ...asked: unknown[]): ComposePidsLimit {
  const values = asked.map(composeValue).filter((v) => v !== undefined);
  const numbers = values.filter((v): v is number => v !== 'unlimited');
  const lowest = numbers.length > 0 ? Math.min(...numbers) : undefined;
  if (lowest !== undefined && lowest <= CONTAINER_PIDS_LIMIT) return { limit: lowest };
  if (lowest === undefined && !values.includes('unlimited')) return { limit: CONTAINER_PIDS_LIMIT };
  const what = lowest !== undefined ? `a pids limit of ${lowest}` : 'no pids limit';
  return {
    limit: CONTAINER_PIDS_LIMIT,
    capped: `service "${service}" asks for ${what}; it runs with HUD Studio's limit of ${CONTAINER_PIDS_LIMIT} processes and threads, which keeps a fork bomb from taking every pid of the host`,
  };
}
