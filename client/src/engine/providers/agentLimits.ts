/**
 * The process limit every command of a sandboxed agent runs under, on
 * Docker and in bubblewrap alike (docs/security.md, "Exhaustion"): a fork
 * bomb in the actor's seat stops at it instead of taking every pid of the
 * container or of the host, and leaves the engine's own processes room to
 * start.
 */

/**
 * Processes and threads of the agent's user (RLIMIT_NPROC). On Docker the
 * kernel counts a uid across every container of the host (they share its
 * user namespace), so each seat's agent is a user of its own
 * (dockerAgentSeat.ts); in bubblewrap each command's user namespace counts
 * its own.
 */
export const AGENT_PROCESS_LIMIT = 1024;

/** dash and busybox name the limit -p, bash -u. */
const LAUNCH = `{ ulimit -p ${AGENT_PROCESS_LIMIT} || ulimit -u ${AGENT_PROCESS_LIMIT}; } 2>/dev/null; exec "$@"`;

/** `argv` started by /bin/sh with the limit set, then run in the shell's place. */
export function underAgentLimits(argv: string[]): string[] {
  return ['/bin/sh', '-c', LAUNCH, 'hud-studio-agent', ...argv];
}
