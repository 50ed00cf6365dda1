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
 * own (a `python3 -` there imports `/app/json.py`). It needs python3 in
 * the image, looked up on the system's own folders only, where the agent
 * cannot have planted one: an image without it cannot be checked, and the
 * caller marks the reward forgeable.
 */
import { DOCKER_DEFAULT_PATH as SYSTEM_PATH } from '../docker/enginePath';
import type { ManagedContainer } from '../docker/types';
import {
  TURN_END_CHECK_SCRIPT,
  TURN_END_CHECK_TIMEOUT_MS,
  turnEndCheckOf,
  unlistedCheckArgs,
  withUnlisted,
  type TurnEndCheck,
} from '../providers/turnEndCheck';

const NO_PYTHON = 127;
/**
 * Reads the container's PATH and PYTHONPATH, which the tests will search, before looking python3 up in the
 * system's folders only; they follow "--search", one argument per folder.
 */
const RUN_CHECK = [
  'search="$PATH:$PYTHONPATH"',
  `PATH=${SYSTEM_PATH}`,
  `command -v python3 >/dev/null 2>&1 || exit ${NO_PYTHON}`,
  'set -f',
  'IFS=:',
  'exec python3 -I -S -c "$0" "$@" --search $search',
].join('\n');
/** Root's walk of the folders the agent's could not list, with the same python3. */
const RUN_AS_ROOT = [`PATH=${SYSTEM_PATH}`, 'exec python3 -I -S -c "$0" "$@"'].join('\n');
// The whole file system, not a workspace.
const TIMEOUT_MS = 2 * TURN_END_CHECK_TIMEOUT_MS;

/**
 * What the check did and found, as the agent's user, with the tests to run in `workdir`; 'no-python' when the
 * image cannot run it.
 */
export async function checkHarborAgentTurnEnd(
  main: ManagedContainer,
  user: string | undefined,
  workdir: string,
): Promise<TurnEndCheck | 'no-python'> {
  const res = await main.exec(['sh', '-c', RUN_CHECK, TURN_END_CHECK_SCRIPT, '/', '--run-in', workdir], {
    ...(user ? { user } : {}),
    cwd: '/',
    timeoutMs: TIMEOUT_MS,
  });
  if (res.exitCode === NO_PYTHON && !res.stdout.trim()) return 'no-python';
  const check = turnEndCheckOf(res, ['/']);
  if (!check.unlisted.length) return check;
  const unlisted = await main.exec(['sh', '-c', RUN_AS_ROOT, TURN_END_CHECK_SCRIPT, ...unlistedCheckArgs(check)], {
    user: 'root',
    cwd: '/',
    timeoutMs: TIMEOUT_MS,
  });
  return withUnlisted(check, turnEndCheckOf(unlisted, check.unlisted));
}
