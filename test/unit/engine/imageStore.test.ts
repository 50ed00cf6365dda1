import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Docker from 'dockerode';
import { containerdSnapshotter, snapshotterOf } from '../../../client/src/engine/docker/imageStore';

// `docker info` as two daemons of this project's machines answered it (Docker 28.5.2, 2026-12-07).
const CLASSIC = {
  Driver: 'overlay2',
  DriverStatus: [
    ['Backing Filesystem', 'extfs'],
    ['Supports d_type', 'true'],
    ['Using metacopy', 'false'],
    ['Native Overlay Diff', 'true'],
    ['userxattr', 'false'],
  ],
};
const CONTAINERD = { Driver: 'overlayfs', DriverStatus: [['driver-type', 'io.containerd.snapshotter.v1']] };

test("containerd's image store is told from the classic one by the driver's status, as the Docker CLI tells it", () => {
  assert.equal(snapshotterOf(CONTAINERD.Driver, CONTAINERD.DriverStatus), 'overlayfs');
  assert.equal(snapshotterOf(CLASSIC.Driver, CLASSIC.DriverStatus), undefined);
  assert.equal(snapshotterOf('overlay2', null), undefined, 'an old daemon without a status');
});

test("one daemon's answer serves the containers made after it; a failed lookup is asked again", async () => {
  let asked = 0;
  let fail = true;
  const daemon = {
    info: async () => {
      asked++;
      if (fail) throw new Error('connect ECONNREFUSED');
      return CONTAINERD;
    },
  } as unknown as Docker;
  await assert.rejects(containerdSnapshotter(daemon), /ECONNREFUSED/);
  fail = false;
  assert.equal(await containerdSnapshotter(daemon), 'overlayfs');
  assert.equal(await containerdSnapshotter(daemon), 'overlayfs');
  assert.equal(asked, 2);
});
