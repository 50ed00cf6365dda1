/**
 * An image that puts a folder of the agent's workspace first on its PATH (a
 * project's `.venv/bin` often is): the agent plants its own `python3` there.
 * The engine's execs after the agent's turn began (the end-of-turn sweep,
 * as root; channel relays, as the server's user) must not run it
 * (docs/security.md), while the agent's own commands still find the
 * image's folders.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DockerProvider } from '../../../client/src/engine/providers/docker';
import { BASE_IMAGE, acquireActor, dockerReady, imageFrom } from '../docker/support';

before(dockerReady);

const ENV_DIR = join(__dirname, 'fixtures', 'survivor_watch');

/** A `python3` that records who ran it, then runs the real one (so nothing else notices). */
const PLANT = [
  'mkdir -p /workspace/bin',
  `printf '#!/bin/sh\\nid -u >> /workspace/ran-as\\nexec /usr/bin/python3 "$@"\\n' > /workspace/bin/python3`,
  'chmod +x /workspace/bin/python3',
  'command -v python3',
].join('\n');

test("the engine's own execs never run a python3 the agent planted on the image's PATH", async () => {
  const image = await imageFrom(
    `FROM ${BASE_IMAGE}\nENV PATH=/workspace/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n`,
  );
  const { s } = await acquireActor(new DockerProvider(), ENV_DIR, { image });
  try {
    await s.serve({ envName: 'workspace', env: {}, log: () => undefined });
    const seat = s.agentSeat();
    const planted = await seat.exec(['sh', '-c', PLANT]);
    assert.equal(planted.stdout.trim(), '/workspace/bin/python3', "the agent's commands keep the image's PATH");
    await seat.end();
    // Channels after the first are relays: each is an exec that starts python3.
    for (let i = 0; i < 3; i++) (await s.openChannel()).destroy();
    const ran = await s.exec(['sh', '-c', 'cat /workspace/ran-as 2>/dev/null || echo nobody'], { user: '0' });
    assert.equal(ran.stdout.trim(), 'nobody', `the planted python3 ran as: ${ran.stdout}`);
  } finally {
    await s.release();
  }
});
