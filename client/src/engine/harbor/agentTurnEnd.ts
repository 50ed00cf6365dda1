/**
 * A shared-mode verifier runs its tests in the agent's container, usually as
 * root, and they read what the agent left. An agent that is not root gets
 * its links cut before that, as in a HUD environment's seat
 * (providers/turnEndCheck.ts; docs/security.md, "Links the agent
 * leaves"): a link it left to where the tests will be (`/tests`, still
 * empty while it works) or to a file only root reads would make the tests
 * read their own expected values as its output.
 *
 * Harbor's agent may leave files anywhere its user can write, so the whole
 * file system is walked (its links only; /proc and /sys are not). The check
 * also reports the folders of the container's PATH and PYTHONPATH, which
 * the tests search, that the agent could have changed, and the modules it
 * left in the workdir, where the tests run, under the names of python3's
 * own (a `python3 -` there imports `/app/json.py`). It runs the image's
 * python3, looked up on the system's own folders only, where the agent
 * cannot have planted one; an image without one is checked from a container
 * beside it (checkBeside.ts), and one that cannot be checked either way is
 * marked forgeable by the caller.
 */
import { DOCKER_DEFAULT_PATH as SYSTEM_PATH } from '../docker/enginePath';
import type { ManagedContainer } from '../docker/types';
import {
  TURN_END_CHECK_SCRIPT,
  TURN_END_CHECK_TIMEOUT_MS,
  turnEndCheckArgs,
  withRootWalk,
} from '../providers/turnEndCheck';
import { agentIdentityOf, checkBeside, type BesideCheck } from './checkBeside';

export const NO_PYTHON = 127;
const NO_PYTHON_SAID = 'no python3';
/**
 * Reads the container's PATH and PYTHONPATH, which the tests will search, before looking python3 up in the
 * system's folders only; they follow "--search", one argument per folder. Without a python3 it prints who the
 * agent's exec is and those folders, one per line, for a check from beside the container.
 */
const RUN_CHECK = [
  'search="$PATH:$PYTHONPATH"',
  `PATH=${SYSTEM_PATH}`,
  'set -f',
  'IFS=:',
  'if ! command -v python3 >/dev/null 2>&1; then',
  `  echo '${NO_PYTHON_SAID}'`,
  '  for folder in $search; do printf \'search %s\\n\' "$folder"; done',
  '  while IFS= read -r line; do case $line in Uid:*|Gid:*|Groups:*) printf \'%s\\n\' "$line";; esac; done </proc/self/status',
  `  exit ${NO_PYTHON}`,
  'fi',
  'exec python3 -I -S -c "$0" "$@" --search $search',
].join('\n');
/**
 * `sh -c` of this, the check script, then its arguments: the script run by the system's python3 (root's walk of
 * the folders the agent's could not list; a separate verifier's reading of its tests' folder), or exit NO_PYTHON.
 */
export const RUN_WITH_SYSTEM_PYTHON = [
  `PATH=${SYSTEM_PATH}`,
  `command -v python3 >/dev/null 2>&1 || exit ${NO_PYTHON}`,
  'exec python3 -I -S -c "$0" "$@"',
].join('\n');
// The whole file system, not a workspace.
const TIMEOUT_MS = 2 * TURN_END_CHECK_TIMEOUT_MS;

/**
 * What the check did and found, as the agent's user, with the tests to run in `workdir`; why it could not be
 * made when the image has no python3 and the check from beside it could not run either.
 */
export async function checkHarborAgentTurnEnd(
  main: ManagedContainer,
  user: string | undefined,
  workdir: string,
  rolloutId: string,
): Promise<BesideCheck> {
  const res = await main.exec(['sh', '-c', RUN_CHECK, TURN_END_CHECK_SCRIPT, '/', '--run-in', workdir], {
    ...(user ? { user } : {}),
    cwd: '/',
    timeoutMs: TIMEOUT_MS,
  });
  if (res.exitCode === NO_PYTHON) return checkWithoutPython(main, res.stdout, workdir, rolloutId);
  const check = await withRootWalk(res, (args) =>
    main.exec(['sh', '-c', RUN_WITH_SYSTEM_PYTHON, TURN_END_CHECK_SCRIPT, ...args], {
      user: 'root',
      cwd: '/',
      timeoutMs: TIMEOUT_MS,
    }),
  );
  return { check };
}

async function checkWithoutPython(
  main: ManagedContainer,
  said: string,
  workdir: string,
  rolloutId: string,
): Promise<BesideCheck> {
  const lines = said.split('\n');
  const agent = lines[0] === NO_PYTHON_SAID ? agentIdentityOf(said) : undefined;
  // No shell, or one that could not say who the agent is: nobody to check as.
  if (!agent) return { unchecked: 'the image has no python3, and no shell that could say who the agent is' };
  const search = lines.filter((l) => l.startsWith('search ')).map((l) => l.slice('search '.length));
  const beside = await checkBeside(main, agent, turnEndCheckArgs(['/'], search, workdir), rolloutId);
  return 'unchecked' in beside ? { unchecked: `the image has no python3, and ${beside.unchecked}` } : beside;
}
