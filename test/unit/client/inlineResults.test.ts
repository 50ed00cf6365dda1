import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import { inlineResults, testingDrawsOnTaskLine } from '../../../client/src/inlineResults';
import type { ShownOutcome } from '../../../client/src/outcome';

const r = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 5 } });
const U = 'file:///w/env.py';
const tpl = (id: string, env: string, def: number, yieldLine: number) => ({
  id,
  env,
  functionName: id,
  description: '',
  uri: U,
  range: r(def),
  gradeYieldRange: r(yieldLine),
  params: [],
  agentless: false,
  resultKeys: [],
  readsKeys: [],
});
const index: WorkspaceIndex = {
  version: 1,
  environments: [],
  templates: [tpl('solve', 'workspace', 5, 8), tpl('verify', 'judge', 11, 14), tpl('plain', 'workspace', 17, 20)],
  tasks: [
    {
      ref: 'env.py::task',
      kind: 'hud',
      label: 'task',
      uri: U,
      range: r(23),
      env: 'workspace',
      templateId: 'solve',
      verifier: { env: 'judge', templateId: 'verify', uri: U, range: r(24), sameEnvironment: false },
    },
    { ref: 'env.py::p', kind: 'hud', label: 'p', uri: U, range: r(26), env: 'workspace', templateId: 'plain' },
  ],
};
/** A run's target: the task's reference and file. */
const at = (ref: string, uri = U) => ({ ref, uri });
const final: ShownOutcome = {
  status: 'completed',
  reward: 0.83,
  result: {
    reward: 0.83,
    subscores: [
      { name: 'exact_match', value: 1, weight: 0.83 },
      { name: 'tests', value: 0, weight: 0.17 },
    ],
    info: {},
    isError: false,
  },
  error: null,
};

describe('inline grader results', () => {
  test('without a verifier: the task line and its template grading yield show the reward', () => {
    const res = inlineResults(index, at('env.py::p'), final);
    assert.deepEqual(
      res.map((x) => [x.line, x.text]),
      [
        [26, 'reward 0.83 · exact_match 1.00 · tests 0.00'],
        [20, 'reward 0.83 · exact_match 1.00 · tests 0.00'],
      ],
    );
    assert.match(res[0]!.hover, /\*\*Reward 0\.83\*\*/);
  });

  test('with a verifier: the actor template shows its provisional grade, the verifier template the reward', () => {
    const res = inlineResults(index, at('env.py::task'), final, { reward: 0, subscores: [], info: {}, isError: false });
    assert.deepEqual(
      res.map((x) => [x.line, x.text]),
      [
        [23, 'reward 0.83 · exact_match 1.00 · tests 0.00'],
        [8, 'reward 0.00 (actor, provisional)'],
        [14, 'reward 0.83 · exact_match 1.00 · tests 0.00'],
      ],
    );
  });

  test('an errored run shows the phase that failed; an unknown task shows nothing', () => {
    const err: ShownOutcome = {
      status: 'error',
      reward: null,
      result: null,
      error: { phase: 'verifier', message: 'boom' },
    };
    assert.equal(inlineResults(index, at('env.py::task'), err, null)[0]!.text, 'errored in verifier: boom');
    assert.deepEqual(inlineResults(index, at('nope.py::x'), final), []);
  });

  test('one inline result per line: a failed or errored task line yields to the Testing message, a passed one keeps the reward', () => {
    const failed = inlineResults(index, at('env.py::p'), final, null, 0.9);
    assert.deepEqual(
      failed.map((x) => [x.line, x.drawnBy ?? 'hud-studio']),
      [
        [26, 'testing'],
        [20, 'hud-studio'],
      ],
      "the template's yield line is no test item: VS Code draws nothing there, so the reward stays",
    );
    const passed = inlineResults(index, at('env.py::p'), final, null, 0.8);
    assert.deepEqual(
      passed.map((x) => x.drawnBy),
      [undefined, undefined],
    );
    const err: ShownOutcome = { status: 'error', reward: null, result: null, error: { phase: 'setup', message: 'x' } };
    assert.equal(inlineResults(index, at('env.py::p'), err, null, 0)[0]!.drawnBy, 'testing');
    assert.equal(testingDrawsOnTaskLine({ ...final, status: 'cancelled' }, 1), false, 'skipped: no message drawn');
    assert.equal(
      inlineResults(index, at('env.py::p'), final)[0]!.drawnBy,
      undefined,
      'a run the Testing view never heard of',
    );
  });

  test("two folders that each hold the env.py: a run of the second draws on the second's file", () => {
    // One reference, one environment and template id in both; the task resolved to its own folder's templates.
    const B = 'file:///v/env.py';
    const inB = <T extends { uri: string }>(x: T) => ({ ...x, uri: B });
    const twoFolders: WorkspaceIndex = {
      ...index,
      templates: [...index.templates, ...index.templates.map(inB)],
      tasks: [U, B].flatMap((uri) =>
        index.tasks.map((t) => ({
          ...t,
          uri,
          templateUri: uri,
          ...(t.verifier ? { verifier: { ...t.verifier, uri, templateUri: uri } } : {}),
        })),
      ),
    };
    const res = inlineResults(twoFolders, at('env.py::task', B), final, {
      reward: 0,
      subscores: [],
      info: {},
      isError: false,
    });
    assert.deepEqual(
      res.map((x) => [x.uri, x.line]),
      [
        [B, 23],
        [B, 8],
        [B, 14],
      ],
    );
    assert.deepEqual(
      inlineResults(twoFolders, at('env.py::p'), final).map((x) => x.uri),
      [U, U],
    );
  });
});
