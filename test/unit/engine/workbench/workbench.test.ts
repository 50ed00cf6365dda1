import { test } from 'node:test';
import assert from 'node:assert/strict';
import { satisfies } from '../../../../client/src/engine/golden/expect';
import { envFileFor, goldenPathFor, parseGolden } from '../../../../client/src/engine/golden/file';
import { formatChange, gradeDelta, summarise } from '../../../../client/src/engine/regrade/delta';
import { cannotRegrade, recordedActorResult } from '../../../../client/src/engine/regrade/regrade';
import { literalValues, sourceStrings } from '../../../../client/src/engine/sanity/probes';
import type { GradeResult, Trace } from '../../../../common/trace/schema';

const grade = (reward: number | null, subs: [string, number][] = []): GradeResult => ({
  reward,
  subscores: subs.map(([name, value]) => ({ name, value, weight: 1 })),
  info: {},
  isError: false,
});

test('gradeDelta: direction and the subscores that moved, appeared or vanished', () => {
  const d = gradeDelta(
    grade(0.4, [
      ['a', 0],
      ['b', 1],
      ['gone', 1],
    ]),
    grade(1, [
      ['a', 1],
      ['b', 1],
      ['new', 0],
    ]),
  );
  assert.equal(d.direction, 'up');
  assert.deepEqual(d.subscores, [
    { name: 'a', before: 0, after: 1 },
    { name: 'gone', before: 1, after: null },
    { name: 'new', before: null, after: 0 },
  ]);
  assert.equal(gradeDelta(grade(1), grade(0.5)).direction, 'down');
  assert.equal(gradeDelta(grade(1), grade(1)).direction, 'unchanged');
  assert.equal(formatChange(0.4, 1), '0.40 -> 1.00');
  assert.equal(formatChange(null, 0), '- -> 0.00');
});

test('summarise counts up, down, unchanged and failed; means over regraded rollouts only', () => {
  const s = summarise([gradeDelta(grade(0), grade(1)), gradeDelta(grade(1), grade(1)), null]);
  assert.deepEqual(s, { total: 3, up: 1, down: 0, unchanged: 1, failed: 1, meanBefore: 0.5, meanAfter: 1 });
});

test('expectations: exact, range and comparison; a missing reward meets none', () => {
  assert.ok(satisfies(1, 1));
  assert.ok(!satisfies(1, 0.99));
  assert.ok(satisfies({ min: 0.3, max: 0.5 }, 0.4));
  assert.ok(!satisfies({ min: 0.5 }, 0.4));
  assert.ok(satisfies('>= 0.5', 0.5));
  assert.ok(!satisfies('> 0.5', 0.5));
  assert.ok(satisfies('!= 0', 0.1));
  assert.ok(!satisfies(0, null));
});

test('golden files: rows with their lines; bad lines become problems naming the line and the field', () => {
  const text = [
    '{"task": "t", "answer": "x", "expect": 1}',
    '',
    '{"task": "t", "answer": "y", "expect": "about 1"}',
    '{not json',
    '{"task": "t", "expect": 0}',
    '{"task": "t[1]", "answer": {"k": 1}, "expect": {"min": 0}, "subscores": {"a/b": 1}}',
  ].join('\n');
  const { rows, problems } = parseGolden(text);
  assert.deepEqual(
    rows.map((r) => [r.line, r.task]),
    [
      [1, 't'],
      [6, 't[1]'],
    ],
  );
  assert.deepEqual(
    problems.map((p) => p.line),
    [3, 4, 5],
  );
  assert.match(problems[0]!.message, /^expect: /);
  assert.match(problems[2]!.message, /answer: missing/);
  assert.equal(goldenPathFor('/w/env.py'), '/w/env.golden.jsonl');
  assert.equal(envFileFor('/w/env.golden.jsonl'), '/w/env.py');
});

test('sanity probes: Literal values and the plain strings of a grader source', () => {
  const src = [
    'async def t(mode: Literal["fast", \'slow\']):',
    '    """Docstring "hidden"."""',
    '    answer = yield f"Say {mode}"',
    '    yield 1.0 if answer == "Paris" else 0.0',
  ].join('\n');
  assert.deepEqual(literalValues(src), ['fast', 'slow']);
  assert.deepEqual(sourceStrings(src), ['fast', 'slow', 'Paris']);
});

test('cannotRegrade says why a Harbor shared-mode trial or an unanswered rollout cannot be regraded', () => {
  const base = { task: { kind: 'hud' }, status: 'completed', answer: 'x' } as unknown as Trace;
  assert.equal(cannotRegrade(base), undefined);
  assert.match(cannotRegrade({ ...base, answer: undefined }) ?? '', /no answer/);
  const shared = {
    ...base,
    task: { kind: 'harbor' },
    harbor: { environmentMode: 'shared', rewards: {} },
  } as unknown as Trace;
  assert.match(cannotRegrade(shared) ?? '', /shared-mode .* agent's container/);
  const separate = { ...shared, harbor: { environmentMode: 'separate', rewards: {} } } as unknown as Trace;
  assert.match(cannotRegrade(separate) ?? '', /no trial folder/);
  const kept = { ...shared, harbor: { environmentMode: 'separate', rewards: {}, trialDir: '/t' } } as unknown as Trace;
  assert.equal(cannotRegrade(kept), undefined);
});

test('recordedActorResult: the frame the verifier judged, only when there was a verifier and an object frame', () => {
  const frame = { score: 0, answer: 'secret', extra: [1, null] };
  const judged = { verifier: { id: 'verify' }, actorResult: frame } as unknown as Trace;
  assert.equal(recordedActorResult(judged), frame);
  assert.equal(recordedActorResult({ ...judged, verifier: null }), undefined);
  assert.equal(recordedActorResult({ ...judged, actorResult: 'text' }), undefined);
  assert.equal(recordedActorResult({ ...judged, actorResult: [frame] }), undefined);
  assert.equal(recordedActorResult({ ...judged, actorResult: undefined }), undefined);
});
