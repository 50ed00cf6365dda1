/** Shared by the Harbor integration tests: run a trial on the real Docker engine and check what it left behind. */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';
import { EventHub, type RolloutEvent } from '../../../common/events';
import { runHarborTask, type HarborRunExtras } from '../../../client/src/engine/harbor/run';
import type { HarborRunRequest } from '../../../client/src/engine/runRequest';
import { containersWith } from '../docker/support';

export const REPO_ROOT = join(__dirname, '..', '..', '..');
export const HARBOR_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'harbor');
export const TRACE_DIR = mkdtempSync(join(tmpdir(), 'hs-harbor-traces-'));

export interface TrialRun {
  outcome: Awaited<ReturnType<typeof runHarborTask>>;
  events: RolloutEvent[];
}

export async function runTrial(
  taskDir: string,
  agent: { agent: string; command?: string },
  extras: HarborRunExtras &
    Pick<HarborRunRequest, 'jobId' | 'allowSharedSecrets' | 'allowServiceAccess' | 'extraHosts'> & {
      signal?: AbortSignal;
      onEvent?: (e: RolloutEvent) => void;
    } = {},
): Promise<TrialRun> {
  const hub = new EventHub();
  const events: RolloutEvent[] = [];
  hub.on((e) => (events.push(e), extras.onEvent?.(e)));
  const outcome = await runHarborTask({
    taskDir,
    cwd: REPO_ROOT,
    agent: agent.agent,
    answer: undefined,
    command: agent.command,
    runtime: 'auto',
    image: undefined,
    traceDir: TRACE_DIR,
    timeoutMs: undefined,
    signal: extras.signal ?? new AbortController().signal,
    hub,
    notice: () => undefined,
    ...extras,
  });
  await assertNothingLeft(outcome.rolloutId);
  return { outcome, events };
}

/** No container and no network of the rollout survives it (compose projects included). */
export async function assertNothingLeft(rolloutId: string): Promise<void> {
  assert.deepEqual(
    await containersWith({ [LABELS.rollout]: rolloutId }),
    [],
    `containers of rollout ${rolloutId} are left`,
  );
  const nets = await dockerClient().listNetworks({ filters: { label: [`${LABELS.rollout}=${rolloutId}`] } });
  assert.deepEqual(
    nets.map((n) => n.Name),
    [],
    `networks of rollout ${rolloutId} are left`,
  );
}

/** A private copy of a fixture with some files replaced (task.toml variants). */
export function fixtureVariant(name: string, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), `hs-harbor-${name}-`));
  cpSync(join(HARBOR_FIXTURES, name), dir, { recursive: true });
  for (const [rel, text] of Object.entries(files)) writeFileSync(join(dir, rel), text, { mode: 0o755 });
  return dir;
}
