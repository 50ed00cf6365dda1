/**
 * Shared by the Docker integration tests. Docker missing is a failure, not a
 * skip: `dockerReady()` throws with the fix.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage } from '../../../client/src/engine/docker/build';
import { dockerAvailable, dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';
import type { DockerProvider, DockerSubstrate } from '../../../client/src/engine/providers/docker';
import type { EnvironmentSpec } from '../../../client/src/engine/providers/provider';

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

/** The tag of an image built from `dockerfile` (its text) in an empty context. */
export async function imageFrom(dockerfile: string): Promise<string> {
  const context = tempDir('image-');
  try {
    writeFileSync(join(context, 'Dockerfile'), dockerfile);
    return (await buildImage({ contextDir: context, onLog: () => undefined })).tag;
  } finally {
    rmSync(context, { recursive: true, force: true });
  }
}

export interface AcquiredActor {
  s: DockerSubstrate;
  rolloutId: string;
  /** What the provider logged while it made the substrate. */
  logs: string[];
  /** A second before the acquisition, for the daemon's events since then. */
  since: number;
}

/** An actor substrate for `envDir`'s env.py on the base image (or what `extra` says), in a rollout of its own. */
export async function acquireActor(
  provider: DockerProvider,
  envDir: string,
  extra: Partial<EnvironmentSpec> = {},
): Promise<AcquiredActor> {
  const rolloutId = `test-${randomUUID()}`;
  const logs: string[] = [];
  const since = Math.floor(Date.now() / 1000) - 1;
  const spec: EnvironmentSpec = {
    envFile: join(envDir, 'env.py'),
    envDir,
    runtimeConfig: null,
    image: BASE_IMAGE,
    ...extra,
  };
  const s = (await provider.acquire(spec, {
    rolloutId,
    phase: 'actor',
    log: (_, text) => logs.push(text),
    startupTimeoutMs: 120_000,
  })) as DockerSubstrate;
  return { s, rolloutId, logs, since };
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
