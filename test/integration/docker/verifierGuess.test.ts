import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { readTrace } from '../../../client/src/engine/trace/store';
import type { Trace } from '../../../common/trace/schema';
import { FIXTURES, rolloutOn } from '../engine-local/rules';
import { dockerUnderTest } from './dockerUnderTest';
import { dockerReady, tempDir } from './support';

// The verifier in the actor's own environment: it shares the actor's substrate, so no container of its own.
const SHARED_VERIFIER = `
@actor.template(id="verify_here")
async def verify_here(expected: str):
    actor_result = yield ""
    yield EvaluationResult(reward=1.0 if actor_result.get("answer") == expected else 0.0)


task.verifier = verify_here(expected="secret")
`;

/** When a span of `phase` named `name` began, in ms from the rollout's start. */
function spanAt(trace: Trace, phase: string, name: string): number {
  const span = (trace.spans ?? []).find((s) => s.phase === phase && s.name === name);
  assert.ok(span, `span ${phase}: ${name} in ${JSON.stringify(trace.spans)}`);
  return span.atMs;
}

describe("Docker: a task's next run asks for its verifier's container before discovery", () => {
  let envFile = '';
  before(async () => {
    await dockerReady();
    envFile = join(tempDir('guess-'), 'env.py');
    writeFileSync(envFile, readFileSync(FIXTURES.twoEnv, 'utf8'));
  });
  after(() => rmSync(join(envFile, '..'), { recursive: true, force: true }));
  const secret = new FixedAgent('secret');

  test('the second run starts the verifier container at once; a changed task drops the guess', async () => {
    const first = await rolloutOn(dockerUnderTest, `${envFile}::task`, secret);
    assert.equal(first.outcome.reward, 1, JSON.stringify(first.outcome.error));
    const t1 = readTrace(first.outcome.tracePath!);
    // Nothing known yet: the verifier's container is asked for once discovery said the task has one.
    assert.ok(spanAt(t1, 'verifier', 'container create and start') > spanAt(t1, 'actor', 'discovery'));
    await dockerUnderTest.assertReleased(first.substrates, first.outcome.rolloutId);

    const second = await rolloutOn(dockerUnderTest, `${envFile}::task`, secret);
    assert.equal(second.outcome.reward, 1, JSON.stringify(second.outcome.error));
    const t2 = readTrace(second.outcome.tracePath!);
    assert.ok(spanAt(t2, 'verifier', 'container create and start') < spanAt(t2, 'actor', 'discovery'));
    assert.equal(t2.phases[1]!.reused, false);
    assert.equal(t2.verifier?.env, 'judge');
    // Still a container of its own that cannot see the actor's file.
    assert.equal(second.outcome.result?.info?.['saw_actor_file'], false);
    assert.equal(second.substrates.length, 2);
    await dockerUnderTest.assertReleased(second.substrates, second.outcome.rolloutId);

    // The task changed: its verifier now shares the actor's substrate. The guessed container goes unused.
    writeFileSync(envFile, `${readFileSync(FIXTURES.twoEnv, 'utf8')}\n${SHARED_VERIFIER}`);
    const third = await rolloutOn(dockerUnderTest, `${envFile}::task`, secret);
    assert.equal(third.outcome.reward, 1, JSON.stringify(third.outcome.error));
    const t3 = readTrace(third.outcome.tracePath!);
    assert.equal(t3.phases[1]!.reused, true, "the verifier ran on the actor's substrate as the task now says");
    assert.ok(
      t3.phases[0]!.logs.some((l) => /made on the last run's answer is not this task's/.test(l.text)),
      JSON.stringify(t3.phases[0]!.logs),
    );
    assert.equal(third.substrates.length, 2, 'the guessed container was made');
    await dockerUnderTest.assertReleased(third.substrates, third.outcome.rolloutId);

    // And the run after that guesses nothing.
    const fourth = await rolloutOn(dockerUnderTest, `${envFile}::task`, secret);
    assert.equal(fourth.outcome.reward, 1);
    assert.equal(fourth.substrates.length, 1);
    await dockerUnderTest.assertReleased(fourth.substrates, fourth.outcome.rolloutId);
  });
});
