/**
 * Two models' rollouts of one task in the compare view (docs/models.md): each
 * side names its model and its tokens, next to the rewards, subscores and the
 * answer diff.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Trace } from '../../common/trace/schema';
import { fixture, openPage, post, useExplorerSession } from './harness';

function byModel(name: string, model: string, reward: number, answer: string, tokens: [number, number]): Trace {
  const t = fixture(name) as Trace;
  t.agent = { kind: 'llm', detail: `llm: ${model}` };
  t.answer = answer;
  t.result!.reward = reward;
  t.agentSteps = [
    { index: 1, at: t.startedAt, toolCalls: [], usage: { input: tokens[0] - 10, output: tokens[1] - 1, cached: 0 } },
    { index: 2, at: t.startedAt, toolCalls: [], usage: { input: 10, output: 1, cached: 5 } },
  ];
  return t;
}

describe('compare view: two models on one task', () => {
  const session = useExplorerSession();

  test('each side names its model and tokens; the reward delta and answer diff are between the models', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    const left = byModel('completed.hudtrace.json', 'openai/gpt-4.1-mini', 0.75, 'one\ntwo', [1200, 80]);
    const right = byModel('compare-b.hudtrace.json', 'anthropic/<b>claude</b>', 0.25, 'one\nthree', [900, 60]);
    await post(page, { type: 'compare', left, right });
    await page.getByTestId('compare').waitFor();
    assert.match(
      await page.getByTestId('compare-left-agent').innerText(),
      /agent llm: openai\/gpt-4\.1-mini · .* · tokens in 1200 out 80/,
    );
    assert.match(
      await page.getByTestId('compare-right-agent').innerText(),
      /agent llm: anthropic\/<b>claude<\/b> · .* · tokens in 900 out 60/,
    );
    assert.equal(await page.locator('[data-testid=compare] b').count(), 0, 'a model name is text');
    assert.equal(await page.getByTestId('reward-delta').locator('.delta').innerText(), '−0.5');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, []);
    await page.close();
  });
});
