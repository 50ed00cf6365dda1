/**
 * Where the tests find Harbor's own checkout (v0.13.2: its example tasks and
 * the setup script that makes its pydantic models importable on python3).
 * HUD_STUDIO_HARBOR_PEER overrides the machine's default location; a missing
 * checkout fails the tests that need it, it never skips them.
 */
import { join } from 'node:path';

export const HARBOR_PEER = process.env.HUD_STUDIO_HARBOR_PEER ?? join('/work', 'shared', 'peers', 'harbor');
export const HARBOR_PEER_EXAMPLES = join(HARBOR_PEER, 'src', 'examples', 'tasks');
export const HARBOR_PEER_SETUP = join(HARBOR_PEER, 'setup.sh');
