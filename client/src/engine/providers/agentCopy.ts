/**
 * The last step of `AgentSeat.copyIn` on every runtime: the agent's own user
 * puts the copy in place, so a link the agent left on the way leads only
 * where the agent may write itself (docs/security.md).
 */
import { HudStudioError } from '../errors';
import type { ExecResult } from './provider';

/** A copy of a few files; the sandbox or container is already up. */
export const AGENT_COPY_TIMEOUT_MS = 60_000;

export const AGENT_COPY_HINT =
  "the agent's user cannot write there (a link of the agent's may lead where it may not write)";

export function agentCopyWhat(target: string): string {
  return `copying into ${target} with the agent's rights`;
}

/**
 * Copies `source` (a file or a folder) into the folder `target`, made if
 * missing, as `target/<name of source>`. Links inside are copied as links,
 * verbatim; modes and times are kept, owners are the copier's. GNU cp's
 * options: the local runtime runs the host's own `cp`.
 */
export function agentCopyArgv(source: string, target: string): string[] {
  return ['sh', '-c', 'mkdir -p -- "$2" && cp -R -P --preserve=mode,timestamps -- "$1" "$2"/', 'sh', source, target];
}

export function agentCopyFailed(target: string, res: ExecResult): HudStudioError {
  const why = (res.stderr || res.stdout).trim() || (res.timedOut ? 'timed out' : `exit ${res.exitCode}`);
  return new HudStudioError('provider', `${agentCopyWhat(target)} failed: ${why}`, { hint: AGENT_COPY_HINT });
}
