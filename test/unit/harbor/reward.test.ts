import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HarborRewardError,
  parseRewardFile,
  parseRewardJson,
  parseRewardTxt,
  pythonFloat,
} from '../../../client/src/engine/harbor/reward';

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
  assert.deepEqual(
    r.subscores.map((s) => [s.name, s.value]),
    [
      ['exists', 1],
      ['correct', 0.5],
      ['documented', 0],
    ],
  );
  const weighted = r.subscores.reduce((sum, s) => sum + s.value * s.weight, 0);
  assert.ok(Math.abs(weighted - r.reward) < 1e-12);
});

test('an explicit "reward" key wins over the mean', () => {
  const r = parseRewardJson('{"reward": 0.9, "a": 0, "b": 0}');
  assert.equal(r.reward, 0.9);
  assert.deepEqual(
    r.subscores.map((s) => [s.name, s.weight]),
    [
      ['a', 0],
      ['b', 0],
    ],
  );
});

test('bad reward.json is a typed error naming the problem', () => {
  assert.throws(() => parseRewardJson('{"a": "high"}'), /key "a" is "high", not a number/);
  assert.throws(() => parseRewardJson('[1]'), /JSON object/);
  assert.throws(() => parseRewardJson('{'), /not valid JSON/);
  assert.throws(() => parseRewardJson('{"a": {"b": 1}}'), HarborRewardError);
});

test('parseRewardFile dispatches by file name', () => {
  assert.equal(parseRewardFile({ name: 'reward.json', text: '{"reward": 1}' }).source, 'reward.json');
  assert.equal(parseRewardFile({ name: 'reward.txt', text: '0' }).reward, 0);
});

// What Harbor v0.13 (Python float(), json.loads, pydantic float|int) makes of each input.
test('reward.txt follows Python float()', () => {
  const cases: [string, number | undefined][] = [
    ['1', 1],
    [' 0.5\n', 0.5],
    ['nan', Number.NaN],
    ['inf', Infinity],
    ['-Infinity', -Infinity],
    ['1_0', 10],
    ['1e3', 1000],
    ['.5', 0.5],
    ['5.', 5],
    ['+2', 2],
    ['0x1', undefined],
    ['', undefined],
    ['true', undefined],
    ['  ', undefined],
    ['1__0', undefined],
    ['_1', undefined],
  ];
  for (const [text, want] of cases) assert.deepEqual(pythonFloat(text), want, JSON.stringify(text));
});

test('reward.json follows json.loads plus pydantic number coercion', () => {
  assert.deepEqual(parseRewardJson('{"a": true, "b": false}').rewards, { a: 1, b: 0 });
  assert.deepEqual(parseRewardJson('{"a": "1.5", "b": " 2 ", "c": "1_0"}').rewards, { a: 1.5, b: 2, c: 10 });
  assert.ok(Number.isNaN(parseRewardJson('{"a": NaN}').rewards.a));
  assert.equal(parseRewardJson('{"reward": Infinity}').rewards.reward, Infinity);
  assert.equal(parseRewardJson('{"reward": -Infinity, "s": "NaN"}').rewards.reward, -Infinity);
  assert.equal(parseRewardJson('{"a": "Infinity is a word"}'.replace('Infinity is a word', 'inf')).rewards.a, Infinity);
  assert.throws(() => parseRewardJson('{"a": "0x1"}'), HarborRewardError);
  assert.throws(() => parseRewardJson('{"a": null}'), HarborRewardError);
  assert.throws(() => parseRewardJson('{"a": [1]}'), HarborRewardError);
  // A string that merely contains the word is not a literal.
  assert.throws(() => parseRewardJson('{"a": "NaN-ish"}'), HarborRewardError);
});

test('an empty reward.json object is valid and counts as 0; a non-finite reward counts as 0 with a note', () => {
  const empty = parseRewardJson('{}');
  assert.deepEqual(empty.rewards, {});
  assert.equal(empty.reward, 0);
  assert.match(empty.note ?? '', /empty object/);
  const nan = parseRewardTxt('nan');
  assert.equal(nan.reward, 0);
  assert.match(nan.note ?? '', /NaN/);
});

test('an empty reward file is an error, as in Harbor', () => {
  assert.throws(() => parseRewardFile({ name: 'reward.txt', text: '' }), /is empty/);
  assert.throws(() => parseRewardFile({ name: 'reward.json', text: '' }), /is empty/);
});
