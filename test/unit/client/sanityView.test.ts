import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import type { ProbeOutcome } from '../../../client/src/engine/sanity/run';
import {
  type SanityResult,
  gamedText,
  goldenRowDiagnostics,
  probeAnswerText,
  sanityDiagnostics,
  sanitySummary,
  sanityTable,
} from '../../../client/src/sanityView';

const range = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 10 } });
const INDEX: WorkspaceIndex = {
  version: 1,
  environments: [],
  templates: [
    {
      id: 'solve',
      env: 'demo',
      functionName: 'solve',
      description: '',
      uri: 'file:///w/env.py',
      range: range(10),
      params: [],
      agentless: false,
      resultKeys: [],
      readsKeys: [],
    },
  ],
  tasks: [
    {
      ref: 'env.py::a',
      kind: 'hud',
      label: 'a',
      uri: 'file:///w/env.py',
      range: range(20),
      env: 'demo',
      templateId: 'solve',
    },
    {
      ref: 'env.py::b',
      kind: 'hud',
      label: 'b',
      uri: 'file:///w/env.py',
      range: range(21),
      env: 'demo',
      templateId: 'gone',
    },
  ],
};

const probe = (name: string, answer: string, reward: number | null, gamed = false, error?: string): ProbeOutcome => ({
  probe: name,
  answer,
  reward,
  gamed,
  ...(error ? { error } : {}),
});

function result(ref: string, probes: ProbeOutcome[], line?: number): SanityResult {
  return { task: { ref, line }, probes, gamedBy: probes.filter((p) => p.gamed), golden: [] };
}

describe('sanity check in the editor', () => {
  test('a probe that gamed the grader reads as its answer and its reward', () => {
    assert.equal(gamedText(probe('empty', '', 1, true)), 'the empty answer scored 1.00; a sound grader gives 0');
    assert.equal(probeAnswerText(probe('literal', 'b', 1)), 'the Literal value "b"');
    assert.equal(probeAnswerText(probe('nop', '(no answer)', 1)), 'no answer at all');
    assert.match(probeAnswerText(probe('echo', 'What is 2+2?\n', 1)), /^the prompt echoed back \("What is 2\+2\? "\)$/);
  });

  test('one warning per gamed task on its template line, each other probe named once; a sound task gets none', () => {
    const results = [
      result('env.py::a', [
        probe('nop', '(no answer)', 0),
        probe('empty', '', 1, true),
        probe('literal', 'x', 0.5, true),
        probe('literal', 'y', 0.75, true),
        probe('empty', ' ', 1, true),
      ]),
      result('env.py::b', [probe('empty', '', 0)]),
    ];
    const d = sanityDiagnostics(INDEX, 'file:///w/env.py', results);
    assert.equal(d.length, 1);
    assert.deepEqual(d[0], {
      uri: 'file:///w/env.py',
      line: 10,
      ref: 'env.py::a',
      message:
        'Gameable grader (task a): the empty answer scored 1.00; a sound grader gives 0; also gamed by literal (0.75).',
      severity: 'warning',
    });
  });

  test('without a resolved template the warning goes on the task, else on the line discovery reported', () => {
    const gamed = [probe('empty', '', 1, true)];
    const [onTask] = sanityDiagnostics(INDEX, 'file:///w/env.py', [result('env.py::b', gamed)]);
    assert.equal(onTask?.line, 21);
    const [unindexed] = sanityDiagnostics(INDEX, 'file:///w/other.py', [result('other.py::c', gamed, 7)]);
    assert.deepEqual([unindexed?.uri, unindexed?.line], ['file:///w/other.py', 6]);
  });

  test('the table lists every probe with its reward and marks the ones that gamed or could not run', () => {
    const table = sanityTable([
      result('env.py::a', [
        probe('empty', '', 1, true),
        probe('long', '(100000 characters)', null, false, 'timed out'),
      ]),
    ]).split('\n');
    assert.equal(table.length, 3);
    assert.match(table[0] ?? '', /^task\s+probe\s+answer\s+reward$/);
    assert.match(table[1] ?? '', /^a\s+empty\s+1\.00\s+GAMED$/);
    assert.match(table[2] ?? '', /^a\s+long\s+\(100000 characters\)\s+-\s+could not run: timed out$/);
  });

  test('the summary counts gameable tasks and failed golden rows', () => {
    const a = result('env.py::a', [probe('empty', '', 1, true)]);
    const b = result('env.py::b', [probe('empty', '', 0)]);
    assert.equal(sanitySummary([a, b]), '1 of 2 tasks gameable');
    const golden = {
      ...b,
      golden: [
        {
          passed: false,
          reward: 0,
          expected: '1',
          row: { task: 'b', answer: '4', expect: 1, line: 3 },
          subscores: [],
          result: null,
        },
      ],
    };
    assert.equal(sanitySummary([golden]), '0 of 1 task gameable; 1 golden row failed');
  });

  test('a golden row that missed is an error on its own line: both rewards and the subscores that moved', () => {
    const row = (line: number, answer: string) => ({ task: 'a', answer, expect: 1, line });
    const missed: SanityResult = {
      ...result('env.py::a', []),
      golden: [
        {
          passed: true,
          reward: 1,
          expected: '== 1',
          row: row(1, 'apple apple apple'),
          subscores: [],
          result: null,
        },
        {
          passed: false,
          reward: 0.4,
          expected: '== 1',
          row: row(3, 'apple'),
          subscores: [{ name: 'enough', expected: '== 1', actual: 0 }],
          result: {
            reward: 0.4,
            subscores: [
              { name: 'enough', value: 0, weight: 1 },
              { name: 'tidy', value: 1, weight: 1 },
            ],
            info: {},
            isError: false,
          },
        },
        {
          passed: false,
          reward: null,
          expected: '== 1',
          row: row(4, 'x'),
          subscores: [],
          result: null,
          error: 'Rollout errored in the actor phase: ValueError',
        },
      ],
    };
    const d = goldenRowDiagnostics('file:///w/env.golden.jsonl', [missed, result('env.py::b', [])]);
    assert.deepEqual(d, [
      {
        uri: 'file:///w/env.golden.jsonl',
        line: 2,
        ref: 'env.py::a',
        message: 'Golden row failed (task a): reward 0.40, expected == 1; enough 0.00, expected == 1',
        severity: 'error',
      },
      {
        uri: 'file:///w/env.golden.jsonl',
        line: 3,
        ref: 'env.py::a',
        message: 'Golden row could not be graded (task a): Rollout errored in the actor phase: ValueError',
        severity: 'warning',
      },
    ]);
    assert.deepEqual(
      goldenRowDiagnostics('file:///w/env.golden.jsonl', [{ ...missed, golden: [missed.golden[0]!] }]),
      [],
    );
  });
});
