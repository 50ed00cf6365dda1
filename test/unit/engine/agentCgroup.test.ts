/**
 * Where a root engine puts its agents' pids cgroups (providers/agentCgroup.ts),
 * decided from a temporary folder standing in for /sys/fs/cgroup: cgroup v2,
 * v1 (hybrid) under the engine's own pids cgroup, and neither.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidsCgroupPlace } from '../../../client/src/engine/providers/agentCgroup';

function fakeFs(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'hs-cgroupfs-'));
  for (const [path, text] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
  }
  return root;
}

const V1_SELF = '9:name=systemd:/\n8:pids:/ci/job-7\n4:memory:/other\n0::/\n';

test('cgroup v2 with pids among its controllers: hud-studio under the mount root', () => {
  const root = fakeFs({ 'cgroup.controllers': 'cpuset cpu io memory pids\n', 'cgroup.procs': '' });
  try {
    assert.deepEqual(pidsCgroupPlace(root, '0::/user.slice/session-1.scope\n'), {
      version: 2,
      parent: join(root, 'hud-studio'),
    });
  } finally {
    rmSync(root, { recursive: true });
  }
});

test('cgroup v2 without the pids controller, and no v1 pids hierarchy: none, with the reason', () => {
  const root = fakeFs({ 'cgroup.controllers': 'cpu memory\n' });
  try {
    const place = pidsCgroupPlace(root, '0::/\n');
    assert.equal(place.version, null);
    assert.match(place.version === null ? place.why : '', /no pids controller/);
  } finally {
    rmSync(root, { recursive: true });
  }
});

test("hybrid (v1 pids, an empty unified mount): under the engine's own pids cgroup", () => {
  const root = fakeFs({
    'unified/cgroup.controllers': '\n',
    'pids/cgroup.procs': '',
    'pids/ci/job-7/cgroup.procs': '123\n',
    'pids/ci/job-7/pids.max': 'max\n',
  });
  try {
    assert.deepEqual(pidsCgroupPlace(root, V1_SELF), {
      version: 1,
      parent: join(root, 'pids', 'ci', 'job-7', 'hud-studio'),
    });
    // At the hierarchy's root when the engine is there; a pids entry among other controllers counts too.
    assert.deepEqual(pidsCgroupPlace(root, '3:blkio,pids:/\n'), {
      version: 1,
      parent: join(root, 'pids', 'hud-studio'),
    });
  } finally {
    rmSync(root, { recursive: true });
  }
});

test('v1 whose own cgroup is not in this mount (another namespace): none', () => {
  const root = fakeFs({ 'pids/cgroup.procs': '' });
  try {
    const place = pidsCgroupPlace(root, V1_SELF);
    assert.equal(place.version, null);
    assert.match(place.version === null ? place.why : '', /not this process's cgroup/);
  } finally {
    rmSync(root, { recursive: true });
  }
});

test('nothing mounted: none', () => {
  const root = fakeFs({});
  try {
    assert.equal(pidsCgroupPlace(root, '').version, null);
  } finally {
    rmSync(root, { recursive: true });
  }
});
