/**
 * A job's runs hand their container removal to the job (engine/job.ts): a
 * run ends, and its trace is written, while its container is still going,
 * and the job does not return before every container of its runs is gone.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EventHub } from '../../../common/events';
import type { Trace } from '../../../common/trace/schema';
import { runJob } from '../../../client/src/engine/job';
import { DockerProvider } from '../../../client/src/engine/providers/docker';
import type { TaskRunRequest } from '../../../client/src/engine/runRequest';
import { LABELS } from '../../../client/src/engine/docker/types';
import { BASE_IMAGE, REPO_ROOT, containersWith, dockerReady, tempDir } from './support';

const ENV_DIR = join(REPO_ROOT, 'test', 'fixtures', 'python', 'verifier_same_env');

describe('a job and its runs’ container removals', () => {
  test('runs end before their containers are removed; the job ends after, with none left', async () => {
    await dockerReady();
    const traces = tempDir('job-removals');
    try {
      const hub = new EventHub();
      const rolloutIds = new Set<string>();
      hub.on((e) => void (e.type === 'rollout.queued' && rolloutIds.add(e.rolloutId)));
      const request: TaskRunRequest = {
        ref: join(ENV_DIR, 'env.py'),
        cwd: ENV_DIR,
        runtime: 'docker',
        image: BASE_IMAGE,
        agent: { choice: { answer: 'secret' } },
        consent: { serviceAccess: false, sharedSecrets: false },
        traceDir: traces,
      };
      const summary = await runJob({
        label: 'removals',
        items: [{ request }],
        group: 4,
        maxConcurrent: 2,
        selected: { provider: new DockerProvider(), notice: undefined },
        summaryDir: null,
        hub,
      });
      assert.equal(summary.completed, 4, JSON.stringify(summary.tasks[0]?.runs.map((r) => r.error)));
      assert.equal(rolloutIds.size, 4);
      for (const id of rolloutIds)
        assert.deepEqual(await containersWith({ [LABELS.rollout]: id }), [], `a container of run ${id} was left`);
      for (const path of summary.traces) {
        const trace = JSON.parse(readFileSync(path, 'utf8')) as Trace;
        const names = (trace.spans ?? []).map((s) => `${s.phase}: ${s.name}`);
        assert.ok(names.includes('actor: server stop (teardown)'), names.join(', '));
        // Written before the removal ended: the removal was off the run's path.
        assert.ok(!names.includes('actor: container remove'), names.join(', '));
      }
    } finally {
      rmSync(traces, { recursive: true, force: true });
    }
  });
});
