/**
 * A real rollout (bundled Python runtime, Local provider, two environments):
 * the explorer's host, the Runs view and the CLI listen on the engine's hub
 * and must hold exactly what the written trace file says.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { HumanRenderer } from '../../../client/src/cli/render';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { readTrace } from '../../../client/src/engine/trace/store';
import { LiveRollouts } from '../../../client/src/explorer/liveRollouts';
import { RunsModel } from '../../../client/src/runsModel';
import { localUnderTest } from './localUnderTest';
import { FIXTURES, removeScratch, rolloutOn } from './rules';

after(removeScratch);

test('every consumer of a real rollout agrees with its trace file', async () => {
  const explorer = new LiveRollouts();
  const runs = new RunsModel();
  const printed: string[] = [];
  const cli = new HumanRenderer({ write: (s: string) => printed.push(s) });
  const { outcome } = await rolloutOn(localUnderTest, `${FIXTURES.twoEnv}::task`, new FixedAgent('secret'), {
    jobId: 'job-fold',
    onEvent: (e) => {
      explorer.apply(e);
      runs.apply(e);
      cli.listener(e);
    },
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.ok(outcome.tracePath);
  const file = JSON.parse(JSON.stringify(readTrace(outcome.tracePath))) as unknown;
  const held = (t: unknown): unknown => JSON.parse(JSON.stringify(t));

  assert.deepEqual(held(explorer.get(outcome.rolloutId)), file, 'the explorer holds the file');
  assert.deepEqual(held(outcome.trace), file, 'the outcome carries the file');
  const noLogs = (t: unknown) => {
    const copy = held(t) as { phases: { logs: unknown[] }[] };
    for (const p of copy.phases) p.logs = [];
    return copy;
  };
  assert.deepEqual(
    noLogs(runs.rollout(outcome.rolloutId)?.trace),
    noLogs(file),
    'the Runs view holds the file but logs',
  );
  const trace = readTrace(outcome.tracePath);
  assert.deepEqual(trace.agent, { kind: 'fixed', detail: new FixedAgent('secret').describe() });
  assert.equal(trace.provider.kind, 'local');
  assert.equal(trace.jobId, 'job-fold');
  assert.ok(trace.phases.every((p) => p.logs.every((l) => l.t >= 0)));
});
