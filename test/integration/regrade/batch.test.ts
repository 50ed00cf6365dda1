/**
 * A regrade batch on a real Docker engine (docs/grader-workbench.md,
 * "Regrading many stored runs"): the next stored run's container is made
 * while one grades, each rollout still has a container of its own, a
 * container made ahead of a source change is not used, and nothing is left
 * once the batch returns. Docker's own event log is the witness.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';
import { regradeRollouts, type RegradeReport } from '../../../client/src/engine/regrade/regradeRollouts';
import { runTask } from '../../../client/src/engine/runTask';
import type { Trace } from '../../../common/trace/schema';
import { containersWith, dockerReady, tempDir } from '../docker/support';

const FIXTURES = join(__dirname, 'fixtures');

before(dockerReady);

interface ContainerEvent {
  action: string;
  rolloutId: string;
  atMs: number;
}

/** HUD Studio's container creations and removals since `sinceMs`, oldest first. */
async function containerEvents(sinceMs: number): Promise<ContainerEvent[]> {
  const stream = await dockerClient().getEvents({
    since: Math.floor(sinceMs / 1000) - 1,
    until: Math.ceil(Date.now() / 1000) + 1,
    filters: { type: ['container'], event: ['create', 'destroy'], label: [LABELS.managed] },
  });
  let text = '';
  for await (const chunk of stream) text += (chunk as Buffer).toString();
  return text
    .split('\n')
    .filter(Boolean)
    .map(
      (line) => JSON.parse(line) as { Action: string; timeNano: number; Actor: { Attributes: Record<string, string> } },
    )
    .map((e) => ({
      action: e.Action,
      rolloutId: e.Actor.Attributes[LABELS.rollout] ?? '',
      atMs: e.timeNano / 1e6,
    }));
}

async function stored(cwd: string, answer: string): Promise<Trace> {
  const done = await runTask(
    {
      ref: 'judged/env.py',
      cwd,
      runtime: 'docker',
      agent: { instance: new FixedAgent(answer) },
      consent: { serviceAccess: false, sharedSecrets: false },
      traceDir: null,
    },
    {},
  );
  assert.equal(done.status, 'completed', done.error?.message);
  return done.trace;
}

function regradeIds(report: RegradeReport): string[] {
  return report.results.map((r) => {
    assert.ok(r.trace, r.error);
    return r.trace.rolloutId;
  });
}

describe('regrade batch on Docker', () => {
  test("the next run's container is made while one grades; one container per rollout, none left after", async () => {
    const cwd = tempDir('regrade-batch');
    cpSync(join(FIXTURES, 'judged'), join(cwd, 'judged'), { recursive: true });
    // The verifier takes a second to grade: longer than making a container on a loaded machine (CI once
    // saw one made 8 ms after the rollout that asked for it ended), so the witness below measures the
    // engine's overlap and not the machine's load.
    const env = join(cwd, 'judged', 'env.py');
    const slow = readFileSync(env, 'utf8')
      .replace('from hud import Environment', 'import asyncio\nfrom hud import Environment')
      .replace('    passed = ', '    await asyncio.sleep(1)\n    passed = ');
    assert.ok(slow.includes('await asyncio.sleep(1)\n    passed = '));
    writeFileSync(env, slow);
    const right = await stored(cwd, 'secret');
    const wrong = await stored(cwd, 'hidden');
    const traces = [right, wrong, right, wrong];
    const since = Date.now();
    const report = await regradeRollouts(traces, { cwd, runtime: 'docker', traceDir: null });
    const events = await containerEvents(since);

    assert.deepEqual(
      report.results.map((r) => [r.original.rolloutId, r.delta?.after, r.delta?.direction]),
      traces.map((t) => [t.rolloutId, t.result?.reward, 'unchanged']),
      JSON.stringify(report.results.map((r) => r.error ?? null)),
    );
    const ids = regradeIds(report);
    assert.equal(new Set(ids).size, ids.length, 'every regrade is a rollout of its own');
    const ours = events.filter((e) => ids.includes(e.rolloutId));
    const created = ours.filter((e) => e.action === 'create');
    // Only the verifier runs again, on a container of its own; nothing is made that no rollout used.
    assert.deepEqual(created.map((e) => e.rolloutId).sort(), [...ids].sort());
    const substrates = report.results.map((r) => r.trace!.phases.map((p) => p.substrate?.id));
    assert.equal(new Set(substrates.flat()).size, ids.length, 'no two rollouts share a container');
    for (let i = 1; i < ids.length; i++) {
      const made = created.find((e) => e.rolloutId === ids[i])!;
      const previousEnded = Date.parse(report.results[i - 1]!.trace!.endedAt!);
      assert.ok(
        made.atMs < previousEnded,
        `rollout ${i}'s container was made ahead, while rollout ${i - 1} graded (${made.atMs} < ${previousEnded})`,
      );
    }
    // Removed in the background, but before the batch returned.
    assert.deepEqual(
      ours
        .filter((e) => e.action === 'destroy')
        .map((e) => e.rolloutId)
        .sort(),
      [...ids].sort(),
    );
    for (const id of ids) assert.deepEqual(await containersWith({ [LABELS.rollout]: id }), []);
  });

  test('a container made before the grader changed is not used: the next run grades the new source', async () => {
    const cwd = tempDir('regrade-batch-edit');
    cpSync(join(FIXTURES, 'judged'), join(cwd, 'judged'), { recursive: true });
    const env = join(cwd, 'judged', 'env.py');
    const right = await stored(cwd, 'secret');
    const traces = [right, right, right];
    const since = Date.now();
    const report = await regradeRollouts(traces, {
      cwd,
      runtime: 'docker',
      traceDir: null,
      onResult: (_r, index) => {
        // Between the first and the second: the second's container, made while the first graded, holds the old file.
        if (index === 0) writeFileSync(env, readFileSync(env, 'utf8').replace('== "secret"', '== "hidden"'));
      },
    });
    const events = await containerEvents(since);
    assert.deepEqual(
      report.results.map((r) => r.delta?.after),
      [1, 0, 0],
      JSON.stringify(report.results.map((r) => r.error ?? null)),
    );
    const ids = regradeIds(report);
    const created = events.filter((e) => e.action === 'create' && ids.includes(e.rolloutId));
    // The second rollout's first container was dropped unused and a fresh one made.
    const seen = `${JSON.stringify(ids)}: ${JSON.stringify(events)}`;
    assert.deepEqual(created.map((e) => e.rolloutId).sort(), [ids[0], ids[1], ids[1], ids[2]].sort(), seen);
    const destroyed = events.filter((e) => e.action === 'destroy' && ids.includes(e.rolloutId));
    assert.equal(
      destroyed.length,
      created.length,
      `every container made was removed before the batch returned: ${seen}`,
    );
  });
});
