/**
 * A shared-mode verifier runs its tests in the agent's container, usually as
 * root, and they read what the agent left. An agent that is not root gets
 * its links cut before that, as in a HUD environment's seat
 * (providers/workspaceLinks.ts; docs/security.md, "Links the agent
 * leaves"): a link it left to where the tests will be (`/tests`, still
 * empty while it works) or to a file only root reads would make the tests
 * read their own expected values as its output.
 *
 * Harbor's agent may leave files anywhere its user can write, so the whole
 * file system is walked (its links only; /proc and /sys are not). The check
 * needs python3 in the image, looked up on the system's own folders only,
 * where the agent cannot have planted one: an image without it cannot be
 * checked, and the caller marks the reward forgeable.
 */
import type { ManagedContainer } from '../docker/types';
import { CUT_LINKS_SCRIPT, CUT_LINKS_TIMEOUT_MS, cutLinksOf, type CutLinks } from '../providers/workspaceLinks';

const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const NO_PYTHON = 127;
const RUN_CHECK = `command -v python3 >/dev/null 2>&1 || exit ${NO_PYTHON}; exec python3 -I -S -c "$0" "$@"`;
// The whole file system, not a workspace.
const TIMEOUT_MS = 2 * CUT_LINKS_TIMEOUT_MS;

/** The links cut, as the agent's user; 'no-python' when the image cannot run the check. */
export async function cutHarborAgentLinks(
  main: ManagedContainer,
  user: string | undefined,
): Promise<CutLinks | 'no-python'> {
  const res = await main.exec(['sh', '-c', RUN_CHECK, CUT_LINKS_SCRIPT, '/'], {
    ...(user ? { user } : {}),
    cwd: '/',
    env: { PATH: SYSTEM_PATH },
    timeoutMs: TIMEOUT_MS,
  });
  if (res.exitCode === NO_PYTHON && !res.stdout.trim()) return 'no-python';
  return cutLinksOf(res, ['/']);
}
