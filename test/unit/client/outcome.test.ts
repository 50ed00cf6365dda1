import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { hoverMarkdown, inlineText, score, testMessage, verdict, type ShownOutcome } from '../../../client/src/outcome';
import { finishedRollout, noAnswerOf } from '../../../client/src/engine/outcome';
import { storedTrace } from './traceFixtures';
import type { SubScoreT } from '../../../common/trace/schema';

const graded = (reward: number, subscores: SubScoreT[] = []): ShownOutcome => ({
  status: 'completed',
  reward,
  result: { reward, subscores, info: {}, isError: false },
  error: null,
});

const errored: ShownOutcome = {
  status: 'error',
  reward: null,
  result: null,
  error: { phase: 'verifier', message: 'verifier grading failed: KeyError: answer\nTraceback ...' },
};

describe('outcome formatting', () => {
  test('scores have two decimals, no negative zero', () => {
    assert.equal(score(0.8333), '0.83');
    assert.equal(score(1), '1.00');
    assert.equal(score(-0.001), '0.00');
    assert.equal(score(-0.25), '-0.25');
    assert.equal(score(1.5), '1.50');
  });

  test('inline text lists the reward then top-level subscores', () => {
    const o = graded(0.83, [
      { name: 'exact_match', value: 1, weight: 0.83 },
      { name: 'tests', value: 0, weight: 0.17, children: [{ name: 'inner', value: 0, weight: 1 }] },
    ]);
    assert.equal(inlineText(o), 'reward 0.83 · exact_match 1.00 · tests 0.00');
  });

  test('a reward nobody answered for says so, inline and in the Testing message', () => {
    assert.equal(inlineText({ ...graded(0), noAnswer: 'empty' }), 'reward 0.00 · the answer was empty');
    assert.equal(inlineText({ ...graded(0), noAnswer: 'nop' }), 'reward 0.00 · the nop agent gave no answer');
    assert.match(
      testMessage({ ...graded(0), noAnswer: 'empty' }, 1),
      /^reward 0\.00 < threshold 1\.00 \(the answer was empty\)$/m,
    );
    assert.equal(inlineText(graded(0)), 'reward 0.00');
  });

  test('noAnswer comes from the trace: the nop agent, or an empty answer sent', () => {
    assert.equal(noAnswerOf({ agent: { kind: 'nop' }, answer: undefined }), 'nop');
    assert.equal(noAnswerOf({ agent: { kind: 'fixed' }, answer: '' }), 'empty');
    assert.equal(noAnswerOf({ agent: { kind: 'fixed' }, answer: 'x' }), undefined);
    assert.equal(noAnswerOf({ agent: { kind: 'command' }, answer: { text: '' } }), undefined);
  });

  test('inline text of an errored rollout names the phase and the first line', () => {
    assert.equal(inlineText(errored), 'errored in verifier: verifier grading failed: KeyError: answer');
    assert.equal(inlineText({ ...errored, status: 'cancelled' }), 'cancelled');
  });

  test("a run graded by the verifier after the actor's grading failed shows both the reward and the error", () => {
    const o: ShownOutcome = {
      status: 'error',
      reward: 0.5,
      result: { reward: 0.5, subscores: [], info: {}, isError: false },
      error: { phase: 'actor', message: 'actor grading failed: boom' },
    };
    assert.equal(inlineText(o), 'reward 0.50 · errored in actor: actor grading failed: boom');
    assert.match(hoverMarkdown(o, 't'), /\*\*Reward 0\.50, errored\*\* in the actor phase/);
    assert.equal(verdict(o, 0.1), 'errored');
  });

  test('hover shows reward, a subscore table with penalties and children, and escapes names', () => {
    const md = hoverMarkdown(
      graded(0.5, [
        { name: 'a_b*', value: 1, weight: 1, children: [{ name: 'child', value: 0.5, weight: 1 }] },
        { name: 'lint', value: 1, weight: -0.5 },
      ]),
      'env.py::task',
    );
    assert.match(md, /\*\*Reward 0\.50\*\*/);
    assert.match(md, /\| a\\_b\\\* \| 1\.00 \| 1\.00 {2}\| 1\.00 \|/);
    assert.match(md, /child \| 0\.50/);
    assert.match(md, /lint \| 1\.00 \| -0\.50 penalty \| -0\.50 \|/);
    assert.match(md, /env\\\.py::task/);
  });

  test('hover of an errored rollout says which phase failed', () => {
    assert.match(hoverMarkdown(errored, 't'), /\*\*Errored\*\* in the verifier phase/);
  });
});

describe('Testing verdicts', () => {
  test('passed at or above the threshold, failed below', () => {
    assert.equal(verdict(graded(1), 1), 'passed');
    assert.equal(verdict(graded(0.99), 1), 'failed');
    assert.equal(verdict(graded(0.5), 0.5), 'passed');
    assert.equal(verdict(graded(1.2), 1), 'passed');
  });

  test('errored rollouts are errored, never failed, even with a number around', () => {
    assert.equal(verdict(errored, 1), 'errored');
    assert.equal(
      verdict({ ...graded(0), result: { reward: 0, subscores: [], info: {}, isError: true } }, 0),
      'errored',
    );
    assert.equal(verdict({ status: 'completed', reward: null, result: null, error: null }, 0), 'errored');
  });

  test('cancelled rollouts are skipped', () => {
    assert.equal(verdict({ ...errored, status: 'cancelled', error: null }, 1), 'skipped');
  });

  test('messages carry reward, threshold, subscores and the failing phase', () => {
    const failed = testMessage(
      graded(0.5, [
        { name: 'exact', value: 0, weight: 0.5 },
        { name: 'pen', value: 1, weight: -0.1 },
      ]),
      1,
    );
    assert.equal(
      failed,
      'reward 0.50 < threshold 1.00 · exact 0.00 · pen 1.00\nsubscores:\n  exact: 0.00 × 0.50\n  pen: 1.00 × -0.10 (penalty)',
    );
    assert.equal(testMessage(graded(1), 1), 'reward 1.00 >= threshold 1.00');
    const err = testMessage({ ...errored, tracePath: '/t/x.hudtrace.json' }, 1);
    assert.match(err, /^Rollout errored in the verifier phase: verifier grading failed/);
    assert.match(err, /trace: \/t\/x\.hudtrace\.json$/);
  });

  test("the first line carries every fact of the editor's inline text (VS Code draws it on the task's line)", () => {
    const firstLine = (o: ShownOutcome) => testMessage(o, 1).split('\n')[0];
    assert.equal(
      firstLine({ ...graded(0.4, [{ name: 'enough', value: 0, weight: 0.6 }]), noAnswer: 'empty' }),
      'reward 0.40 < threshold 1.00 (the answer was empty) · enough 0.00',
    );
    const gradedAnyway: ShownOutcome = {
      status: 'error',
      reward: 0.5,
      result: { reward: 0.5, subscores: [], info: {}, isError: false },
      error: { phase: 'actor', message: 'actor grading failed: boom' },
    };
    assert.equal(inlineText(gradedAnyway), 'reward 0.50 · errored in actor: actor grading failed: boom');
    assert.equal(
      firstLine(gradedAnyway),
      'reward 0.50 (not counted) · Rollout errored in the actor phase: actor grading failed: boom',
    );
    assert.equal(
      firstLine(errored),
      'Rollout errored in the verifier phase: verifier grading failed: KeyError: answer',
    );
  });
});

describe('what a run entry resolves with', () => {
  const trace = storedTrace('r1', 0);

  test("either engine's ending gives the same value: the trace's reference, the error's phase, message and fix", () => {
    // As the engine ends a run: with the error's internal code, which stays in the trace.
    const ending = {
      status: 'error' as const,
      result: null,
      error: { phase: 'setup' as const, message: 'no image', fix: { kind: 'image' as const }, code: 'image-missing' },
    };
    const failed = finishedRollout('r1', ending, {
      trace,
      tracePath: '/t/r1.hudtrace.json',
      traceError: undefined,
      reward: null,
    });
    assert.deepEqual(failed, {
      rolloutId: 'r1',
      ref: 'envs/env.py::task',
      status: 'error',
      reward: null,
      result: null,
      error: { phase: 'setup', message: 'no image', fix: { kind: 'image' } },
      tracePath: '/t/r1.hudtrace.json',
      trace,
    });
  });

  test('a trace that could not be written says why, and the result still holds', () => {
    const result = { reward: 1, subscores: [], info: {}, isError: false };
    const done = finishedRollout(
      'r1',
      { status: 'completed', result, error: null },
      { trace, tracePath: undefined, traceError: 'EROFS: read-only file system', reward: 1 },
    );
    assert.equal(done.reward, 1);
    assert.equal(done.error, null);
    assert.equal(done.traceError, 'EROFS: read-only file system');
    assert.equal(done.tracePath, undefined);
    assert.deepEqual(done.result, result);
  });
});
