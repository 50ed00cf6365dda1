/**
 * Where the tests find Harbor's own checkout (v0.13.2: its example tasks and
 * the setup script that makes its pydantic models importable on python3).
 * HUD_STUDIO_HARBOR_PEER overrides the machine's default location; a missing
 * checkout fails the tests that need it, it never skips them.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO_ROOT = resolve(__dirname, '..');

/** The override, else shared/ beside the checkout (as CI lays it out), else this machine's own copy. */
function findPeer(): string {
  const candidates = [join(REPO_ROOT, '..', 'shared', 'peers', 'harbor'), join('/work', 'shared', 'peers', 'harbor')];
  return (
    process.env.HUD_STUDIO_HARBOR_PEER ?? candidates.find((c) => existsSync(join(c, 'setup.sh'))) ?? candidates[0]!
  );
}

export const HARBOR_PEER = findPeer();
export const HARBOR_PEER_EXAMPLES = join(HARBOR_PEER, 'src', 'examples', 'tasks');
export const HARBOR_PEER_SETUP = join(HARBOR_PEER, 'setup.sh');
