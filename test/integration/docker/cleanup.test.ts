import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { removeOrphans, processAlive } from '../../../client/src/engine/docker/cleanup';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';
import { BASE_IMAGE, containerExists, dockerReady, removeContainers } from './support';

const made: string[] = [];
const live = spawn('sleep', ['300'], { stdio: 'ignore' });

async function labelled(ownerHost: string, ownerPid: number): Promise<string> {
  const c = await dockerClient().createContainer({
    Image: BASE_IMAGE,
    Cmd: ['sleep', 'infinity'],
    Labels: {
      [LABELS.managed]: 'true',
      [LABELS.rollout]: `cleanup-${randomUUID()}`,
      [LABELS.phase]: 'actor',
      [LABELS.ownerHost]: ownerHost,
      [LABELS.ownerPid]: String(ownerPid),
    },
    HostConfig: { NetworkMode: 'none' },
  });
  made.push(c.id);
  return c.id;
}

before(dockerReady);
after(async () => {
  live.kill('SIGKILL');
  await removeContainers(made);
});

test("start-up cleanup removes only this host's containers whose owner process is gone", async () => {
  // A pid that certainly belonged to a process and is now free.
  const dead = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
  const deadPid = Number(dead);
  assert.equal(processAlive(deadPid), false);
  assert.equal(processAlive(live.pid!), true);

  const orphan = await labelled(hostname(), deadPid);
  const ofLiveProcess = await labelled(hostname(), live.pid!);
  const ofThisProcess = await labelled(hostname(), process.pid);
  const ofOtherHost = await labelled(`not-${hostname()}`, deadPid);

  const removed = await removeOrphans();
  assert.ok(removed.containers >= 1, `removed ${removed.containers}`);
  assert.equal(await containerExists(orphan), false, "the dead owner's container is gone");
  assert.equal(await containerExists(ofLiveProcess), true, "a live process's rollout is left alone");
  assert.equal(await containerExists(ofThisProcess), true, 'our own containers are left alone');
  assert.equal(await containerExists(ofOtherHost), true, "another host's containers on a shared daemon are left alone");
});
