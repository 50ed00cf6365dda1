/**
 * The one worker pool (engine/job.ts) as the editor uses it: requests built
 * per target (not paths to discover), a job.started event on the hub, every
 * run's end reported, and a *.hudjob.json summary beside the traces.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { EventHub, type JobEvent, type RolloutEvent } from '../../../common/events';
import { runJob, type JobItem, type JobSummary } from '../../../client/src/engine/job';
import type { RolloutOutcome } from '../../../client/src/engine/outcome';
import type { TaskRunRequest } from '../../../client/src/engine/runRequest';
import { runTask, selectRuntime } from '../../../client/src/engine/runTask';
import { FIXTURES, scratchDir } from './rules';

function request(ref: string, traceDir: string): TaskRunRequest {
  return {
    ref,
    cwd: dirname(ref),
    runtime: 'local',
    agent: { choice: { answer: 'secret' } },
    consent: { serviceAccess: false, sharedSecrets: false },
    traceDir,
    limits: { startupMs: 60_000 },
  };
}

describe('one pool for eval and editor batches', () => {
  test('a batch of requests: job.started first, each run ends, a job summary beside the traces', async () => {
    const traces = scratchDir('hs-pool-');
    const hub = new EventHub();
    const jobEvents: JobEvent[] = [];
    const rolloutEvents: RolloutEvent[] = [];
    hub.onJob((e) => jobEvents.push(e));
    hub.on((e) => rolloutEvents.push(e));
    const items: JobItem[] = [
      { request: request(`${FIXTURES.twoEnv}::task`, traces) },
      { request: request(`${FIXTURES.sameEnv}::task`, traces) },
      { request: request(`${FIXTURES.sameEnv}::no_such_task`, traces) },
    ];
    const ended: [JobItem, RolloutOutcome][] = [];
    const base = items[0]!.request;
    const summary = await runJob({
      label: 'Run 3 tasks',
      items,
      jobId: 'job-under-test',
      maxConcurrent: 2,
      selected: await selectRuntime(base),
      summaryDir: traces,
      hub,
      onRunEnded: (item, outcome) => ended.push([item, outcome]),
    });

    assert.deepEqual(
      jobEvents.map((e) => [e.type, e.jobId, e.label, e.total]),
      [['job.started', 'job-under-test', 'Run 3 tasks', 3]],
    );
    const queued = rolloutEvents.filter((e) => e.type === 'rollout.queued');
    assert.equal(queued.length, 3);
    assert.ok(queued.every((e) => e.type === 'rollout.queued' && e.jobId === 'job-under-test'));

    assert.equal(ended.length, 3);
    const byRef = new Map(ended.map(([item, o]) => [item.request.ref, o]));
    assert.equal(byRef.get(`${FIXTURES.twoEnv}::task`)?.reward, 1);
    assert.equal(byRef.get(`${FIXTURES.sameEnv}::task`)?.reward, 1);
    const wrong = byRef.get(`${FIXTURES.sameEnv}::no_such_task`);
    assert.equal(wrong?.status, 'error');
    assert.match(wrong?.error?.message ?? '', /has no task "no_such_task"/);

    assert.equal(summary.completed, 2);
    assert.deepEqual(
      summary.loadErrors.map((e) => e.path),
      [`${FIXTURES.sameEnv}::no_such_task`],
    );
    assert.equal(summary.errorsByPhase.setup, 1);
    assert.ok(summary.summaryPath?.startsWith(traces) && summary.summaryPath.endsWith('.hudjob.json'));
    const written = JSON.parse(readFileSync(summary.summaryPath!, 'utf8')) as JobSummary;
    assert.equal(written.label, 'Run 3 tasks');
    assert.deepEqual(written.traces.sort(), [...summary.traces].sort());
  });

  test('each run gets its id before its first event, so two items with one reference are told apart', async () => {
    // Two workspace folders that each hold an env.py give their tasks one reference; a group repeats an item.
    const traces = scratchDir('hs-pool-ids-');
    const hub = new EventHub();
    const started: string[] = [];
    hub.on((e) => {
      if (e.type === 'rollout.started') started.push(e.rolloutId);
    });
    const items: JobItem[] = [
      { request: request(`${FIXTURES.sameEnv}::task`, traces) },
      { request: request(`${FIXTURES.sameEnv}::task`, traces) },
    ];
    const given = new Map<JobItem, string[]>(items.map((i) => [i, []]));
    const ended = new Map<JobItem, string[]>(items.map((i) => [i, []]));
    const seen: string[] = [];
    hub.on((e) => seen.push(e.rolloutId));
    const early: string[] = [];
    await runJob({
      label: 'Run one reference twice',
      items,
      group: 2,
      maxConcurrent: 2,
      selected: await selectRuntime(items[0]!.request),
      summaryDir: null,
      hub,
      onRunStarting: (item, id) => {
        if (seen.includes(id)) early.push(id);
        given.get(item)!.push(id);
      },
      onRunEnded: (item, outcome) => ended.get(item)!.push(outcome.rolloutId),
    });
    const all = [...given.values()].flat();
    assert.equal(new Set(all).size, 4, 'one id per run');
    for (const item of items) {
      assert.equal(given.get(item)!.length, 2);
      assert.deepEqual([...ended.get(item)!].sort(), [...given.get(item)!].sort(), 'each run ends under its own id');
    }
    assert.deepEqual([...started].sort(), [...all].sort(), 'the events carry the ids given');
    assert.deepEqual(early, [], 'each id is given before any event of its run');
  });

  test('runTask sends a Harbor directory to the Harbor runner and refuses a runtime it cannot use, with a typed fix', async () => {
    const task = join(dirname(dirname(dirname(FIXTURES.sameEnv))), 'harbor', 'shared-basic');
    assert.ok(existsSync(join(task, 'task.toml')), task);
    await assert.rejects(
      runTask({ ...request(task, scratchDir('hs-pool-h-')), agent: { choice: { agent: 'nop' } } }),
      (err: { message?: string; fix?: unknown }) => {
        assert.match(err.message ?? '', /Harbor tasks run in Docker; the local runtime cannot run them/);
        assert.deepEqual(err.fix, { kind: 'runtime', use: 'docker' });
        return true;
      },
    );
  });
});
