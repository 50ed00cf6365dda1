/**
 * A task run again in the same process starts its verifier's container with
 * the actor's, from what the last discovery of the task said (engine/
 * verifierHints.ts); a hint the task no longer fits is released unused, and
 * the run grades as it would have without it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Trace, TraceSpan } from '../../../common/trace/schema';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { DockerProvider } from '../../../client/src/engine/providers/docker';
import type { FinishedRollout } from '../../../client/src/engine/outcome';
import { runRollout } from '../../../client/src/engine/rollout';
import { BASE_IMAGE, REPO_ROOT, assertNoContainersOfRollout, dockerReady, tempDir } from './support';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'python', 'verifier_two_env', 'env.py');

function spanOf(trace: Trace, key: string): TraceSpan {
  const span = (trace.spans ?? []).find((s) => `${s.phase}: ${s.name}` === key);
  assert.ok(
    span,
    `the trace has a span "${key}": ${(trace.spans ?? []).map((s) => `${s.phase}: ${s.name}`).join(', ')}`,
  );
  return span;
}

describe('the verifier container of a task run again', () => {
  test('starts with the actor’s from the last discovery; a hint that no longer fits is released', async () => {
    await dockerReady();
    const dir = tempDir('verifier-hint');
    const envFile = join(dir, 'env.py');
    copyFileSync(FIXTURE, envFile);
    const provider = new DockerProvider({ defaultImage: BASE_IMAGE });
    const run = async (): Promise<FinishedRollout> => {
      const out = await runRollout({
        ref: envFile,
        cwd: dir,
        provider,
        agent: new FixedAgent('secret'),
        traceDir: null,
      });
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      assert.equal(out.reward, 1);
      await assertNoContainersOfRollout(out.rolloutId);
      return out;
    };
    const discoveryEnd = (t: Trace): number => {
      const d = spanOf(t, 'actor: discovery');
      return d.atMs + d.ms;
    };
    const verifierStart = (t: Trace): number => {
      return spanOf(t, 'verifier: container create and start').atMs;
    };
    try {
      // First run in this process: nothing is known before discovery.
      const first = await run();
      assert.ok(
        verifierStart(first.trace) >= discoveryEnd(first.trace) - 1,
        `first run: the verifier's container started after discovery (${verifierStart(first.trace)} vs ${discoveryEnd(first.trace)})`,
      );

      // Again: the verifier's container was on its way before the actor's discovery ended.
      const second = await run();
      assert.ok(
        verifierStart(second.trace) < discoveryEnd(second.trace),
        `second run: the verifier's container started with the actor's (${verifierStart(second.trace)} vs ${discoveryEnd(second.trace)})`,
      );
      assert.equal(second.result?.info?.['saw_actor_file'], false, 'the verifier still grades on a fresh container');

      // The verifier moves onto the actor's environment: the hinted container is not used, and goes.
      writeFileSync(
        envFile,
        readFileSync(envFile, 'utf8').replace('@judge.template(id="verify")', '@actor.template(id="verify")'),
      );
      const third = await run();
      const logs = third.trace.phases.flatMap((p) => p.logs.map((l) => l.text));
      assert.ok(
        logs.some((l) => /no longer fits; released/.test(l)),
        `the unused container was released:\n${logs.join('\n')}`,
      );
      assert.equal(third.result?.info?.['saw_actor_file'], true, "the verifier graded on the actor's substrate");

      // And the hint follows the task: a fourth run starts no verifier container at all.
      const fourth = await run();
      assert.ok(
        !(fourth.trace.spans ?? []).some((s) => `${s.phase}: ${s.name}` === 'verifier: container create and start'),
        'no container is made for a verifier that shares the actor’s',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
