import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HarborRewardError, parseRewardFile, parseRewardJson, parseRewardTxt } from '../../../client/src/engine/harbor/reward';

test('reward.txt is one number', () => {
  assert.equal(parseRewardTxt('0.75\n').reward, 0.75);
  assert.equal(parseRewardTxt(' 1 ').reward, 1);
  assert.throws(() => parseRewardTxt('passed'), HarborRewardError);
  assert.throws(() => parseRewardTxt(''), /not a number/);
});

test('reward.json metrics become subscores and their mean is the reward', () => {
  const r = parseRewardJson('{"exists": 1, "correct": 0.5, "documented": 0}');
  assert.equal(r.reward, 0.5);
  assert.deepEqual(r.rewards, { exists: 1, correct: 0.5, documented: 0 });
  assert.deepEqual(r.subscores.map((s) => [s.name, s.value]), [['exists', 1], ['correct', 0.5], ['documented', 0]]);
  const weighted = r.subscores.reduce((sum, s) => sum + s.value * s.weight, 0);
  assert.ok(Math.abs(weighted - r.reward) < 1e-12);
});

test('an explicit "reward" key wins over the mean', () => {
  const r = parseRewardJson('{"reward": 0.9, "a": 0, "b": 0}');
  assert.equal(r.reward, 0.9);
  assert.deepEqual(r.subscores.map((s) => [s.name, s.weight]), [['a', 0], ['b', 0]]);
});

test('bad reward.json is a typed error naming the problem', () => {
  assert.throws(() => parseRewardJson('{"a": "high"}'), /key "a" is "high", not a number/);
  assert.throws(() => parseRewardJson('[1]'), /JSON object/);
  assert.throws(() => parseRewardJson('{}'), /no metrics/);
  assert.throws(() => parseRewardJson('{'), /not valid JSON/);
  assert.throws(() => parseRewardJson('{"a": {"b": 1}}'), HarborRewardError);
});

test('parseRewardFile dispatches by file name', () => {
  assert.equal(parseRewardFile({ name: 'reward.json', text: '{"reward": 1}' }).source, 'reward.json');
  assert.equal(parseRewardFile({ name: 'reward.txt', text: '0' }).reward, 0);
});
