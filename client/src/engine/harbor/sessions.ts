/**
 * Ends the agent's sessions before anything is collected or verified: every
 * process that was not running before the agent started dies, whatever it
 * did to its environment, group or session (so a background process cannot
 * tamper with collection or with a shared verifier).
 */
import type { ManagedContainer } from '../docker/types';

const LIST = 'for d in /proc/[0-9]*; do echo "${d#/proc/}"; done';

// Builtins only, so the loop itself spawns nothing that it would then kill. Two
// passes catch children forked while the first pass ran.
const KILL_NEW = [
  'keep=" 1 $$ $KEEP "',
  'for pass in 1 2; do',
  '  for d in /proc/[0-9]*; do',
  '    p=${d#/proc/}',
  '    case "$keep" in *" $p "*) continue ;; esac',
  '    kill -9 "$p" 2>/dev/null',
  '  done',
  'done',
  'exit 0',
].join('\n');

export async function processSnapshot(container: ManagedContainer): Promise<number[]> {
  const r = await container.exec(['/bin/sh', '-c', LIST], { user: 'root', timeoutMs: 30_000 });
  return r.stdout
    .split('\n')
    .filter((l) => /^\d+$/.test(l))
    .map(Number);
}

/** Kills every process not in `keep` (PID 1 always survives). */
export async function killNewProcesses(container: ManagedContainer, keep: number[]): Promise<void> {
  await container.exec(['/bin/sh', '-c', KILL_NEW], { user: 'root', env: { KEEP: keep.join(' ') }, timeoutMs: 30_000 });
}
