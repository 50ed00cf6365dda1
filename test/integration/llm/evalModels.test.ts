/** `hud-studio eval --model A --model B`: the per-model table, the task x model matrix, the job file. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobSummary } from '../../../client/src/engine/job';
import { startScriptedModel, type ScriptEntry } from '../../support/scriptedModels';
import { scratchDir } from '../engine-local/rules';
import { cli } from '../cli/cliHarness';

const TWO = join(__dirname, 'fixtures', 'two_answers', 'env.py');
const submit = (answer: string): ScriptEntry => ({
  toolCalls: [{ name: 'submit', arguments: { answer } }],
  usage: { input: 100, output: 10, cached: 40 },
});

test('an eval of two scripted models gives the right per-model table and matrix', { timeout: 180_000 }, async () => {
  // One server hosts both models; --max-concurrent 1 keeps each model's script in task order (number, then colour).
  // `weak` answers the first task wrong and then the server fails every request: an actor error on the second.
  const server = await startScriptedModel(
    'openai',
    { good: [submit('42'), submit('blue')], weak: [submit('41')] },
    { whenExhausted: { status: 500 } },
  );
  const dir = scratchDir('eval-models-');
  const args = ['eval', TWO, '--runtime', 'local', '--trace-dir', dir, '--max-retries', '0', '--max-concurrent', '1'];
  args.push('--model', 'openai-compatible/good', '--model', 'openai-compatible/weak', '--base-url', server.baseUrl);
  try {
    const json = await cli([...args, '--json']);
    assert.equal(json.code, 1, 'an errored run makes the job exit 1');
    const s = JSON.parse(json.stdout) as JobSummary;
    assert.equal(s.total, 4);
    const [good, weak] = s.models!;
    assert.deepEqual(
      {
        model: good!.model,
        runs: good!.runs,
        mean: good!.meanReward,
        pass: good!.passAtK,
        errors: good!.errorsByPhase,
        tokens: good!.tokens,
      },
      {
        model: 'openai-compatible/good',
        runs: 2,
        mean: 1,
        pass: 1,
        errors: { setup: 0, actor: 0, verifier: 0 },
        tokens: { input: 200, output: 20, cached: 80 },
      },
    );
    assert.deepEqual(
      {
        runs: weak!.runs,
        mean: weak!.meanReward,
        pass: weak!.passAtK,
        errored: weak!.errored,
        errors: weak!.errorsByPhase,
        tokens: weak!.tokens,
      },
      {
        runs: 2,
        mean: 0,
        pass: 0,
        errored: 1,
        errors: { setup: 0, actor: 1, verifier: 0 },
        tokens: { input: 100, output: 10, cached: 40 },
      },
    );
    assert.ok(good!.wallMs > 0);
    assert.deepEqual(s.matrix!.models, ['openai-compatible/good', 'openai-compatible/weak']);
    assert.deepEqual(s.matrix!.tasks, [`${TWO}::number`, `${TWO}::colour`]);
    assert.deepEqual(
      s.matrix!.cells.map((row) => row.map((c) => c.meanReward)),
      [
        [1, 0],
        [1, 0],
      ],
    );
    assert.ok(
      s.matrix!.cells.every((row) => row.every((c) => c.traces.length === 1)),
      'every cell links its rollout',
    );
    const trace = JSON.parse(readFileSync(s.matrix!.cells[0]![1]!.traces[0]!, 'utf8')) as { agent: { detail: string } };
    assert.equal(trace.agent.detail, 'llm: openai-compatible/weak', "a cell opens that model's rollout");
    assert.deepEqual(JSON.parse(readFileSync(s.summaryPath!, 'utf8')), s, 'the job file holds all of it');

    // The human form: one row per model and the matrix.
    server.requests.length = 0;
    const again = await startScriptedModel(
      'openai',
      { good: [submit('42'), submit('blue')], weak: [submit('41')] },
      { whenExhausted: { status: 500 } },
    );
    try {
      const human = await cli([...args.slice(0, -1), again.baseUrl]);
      assert.match(human.stdout, /openai-compatible\/good\s+2\s+1\.00\s+100%\s+100%\s+0\/0\/0\s+200\/20 \(80\)/);
      assert.match(human.stdout, /openai-compatible\/weak\s+2\s+0\.00\s+0%\s+0%\s+0\/1\/0\s+100\/10 \(40\)/);
      assert.match(human.stdout, /mean reward, task x model:/);
      assert.match(human.stdout, /::colour\s+1\.00\s+0\.00/);
    } finally {
      await again.close();
    }
  } finally {
    await server.close();
  }
});
