/**
 * Shared by the Docker integration tests. Docker missing is a failure, not a
 * skip: `dockerReady()` throws with the fix.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerAvailable, dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';

export const REPO_ROOT = join(__dirname, '..', '..', '..');
export const BASE_IMAGE = 'hud-studio/base:bookworm';
export const DOCKER_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'docker');

export async function dockerReady(): Promise<void> {
  const a = await dockerAvailable();
  assert.ok(a.ok, `these tests need a Docker engine: ${a.ok ? '' : a.reason} (scripts/setup-docker.sh sets one up)`);
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `hs-docker-${prefix}-`));
}

/** Ids of containers (running or not) carrying every given label. */
export async function containersWith(labels: Record<string, string>): Promise<string[]> {
  const list = await dockerClient().listContainers({
    all: true,
    filters: { label: Object.entries(labels).map(([k, v]) => `${k}=${v}`) },
  });
  return list.map((c) => c.Id);
}

export async function containerExists(id: string): Promise<boolean> {
  try {
    await dockerClient().getContainer(id).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
}

export async function assertNoContainersOfRollout(rolloutId: string): Promise<void> {
  assert.deepEqual(
    await containersWith({ [LABELS.rollout]: rolloutId }),
    [],
    `no container of rollout ${rolloutId} is left`,
  );
}

export async function removeContainers(ids: string[]): Promise<void> {
  await Promise.all(
    ids.map((id) =>
      dockerClient()
        .getContainer(id)
        .remove({ force: true, v: true })
        .catch(() => undefined),
    ),
  );
}
