/**
 * Ends the agent's sessions before anything is collected or verified: every
 * process that was not running before the agent started dies, whatever it
 * did to its environment, group or session (so a background process cannot
 * tamper with collection or with a shared verifier), and however fast it
 * forks (docs/security.md, "Exhaustion").
 */
import type { ManagedContainer } from '../docker/types';

/**
 * Sets `id` to a process's identity, `pid:start time` (a pid alone may have
 * been freed and taken by another process since the snapshot), and `state`
 * to its state letter; fails when the process is gone. Builtins only: the
 * name in `stat` may hold spaces and parentheses, so the fields are those
 * after its last `) `.
 */
const IDENTIFY = [
  'identify() {',
  '  line=',
  '  read -r line 2>/dev/null < "/proc/$1/stat" || return 1',
  '  [ -n "$line" ] || return 1',
  '  set -- $1 ${line##*) }',
  '  state=$2; id="$1:${21}"',
  '}',
].join('\n');

const LIST = [IDENTIFY, 'for d in /proc/[0-9]*; do identify "${d#/proc/}" && echo "$id"; done', 'exit 0'].join('\n');

/**
 * Builtins only, so that the sweep itself needs no free pid (the container
 * may be at its pids limit). Each round stops every process of the
 * container but its init and the sweep at once (`kill -1`: the kernel
 * signals them all while no process can fork), then kills those that are
 * not in `KEEP`, and the rounds go on until one finds none left (a child
 * forked while the stop went out). Killing one by one while the rest ran
 * did not end a bomb that forks without end: each death freed a place under
 * the limit that a sibling forked into, and the bomb, with every CPU, kept
 * the container full. The processes in `KEEP` are resumed at the end.
 * Zombies are skipped (they fork nothing, and Docker's init reaps them).
 * Exits 1 when processes are left after its rounds.
 */
const KILL_NEW = [
  IDENTIFY,
  'keep=" $KEEP "',
  'round=0; left=1',
  'while [ $left -gt 0 ] && [ $round -lt 20 ]; do',
  '  round=$((round+1)); left=0',
  // The second spelling for shells whose kill takes no `--`.
  '  kill -s STOP -- -1 2>/dev/null || kill -STOP -1 2>/dev/null',
  '  for d in /proc/[0-9]*; do',
  '    p=${d#/proc/}',
  '    [ "$p" = "$$" ] && continue',
  '    identify "$p" || continue',
  '    case "$keep" in *" $id "*) continue ;; esac',
  '    case "$state" in Z|X|x) continue ;; esac',
  '    kill -s KILL "$p" 2>/dev/null; left=$((left+1))',
  '  done',
  'done',
  'for k in $KEEP; do kill -s CONT "${k%%:*}" 2>/dev/null; done',
  '[ $left -eq 0 ] || { echo "processes of the agent survived $round rounds" >&2; exit 1; }',
].join('\n');

/** The identities (`pid:start time`) of the container's processes. */
export async function processSnapshot(container: ManagedContainer): Promise<string[]> {
  const r = await container.exec(['/bin/sh', '-c', LIST], { user: 'root', timeoutMs: 30_000 });
  return r.stdout.split('\n').filter((l) => /^\d+:\d+$/.test(l));
}

/** Kills every process not in `keep`, stopping them all first (identities from {@link processSnapshot}). */
export async function killNewProcesses(container: ManagedContainer, keep: string[]): Promise<void> {
  await container.exec(['/bin/sh', '-c', KILL_NEW], { user: 'root', env: { KEEP: keep.join(' ') }, timeoutMs: 60_000 });
}
