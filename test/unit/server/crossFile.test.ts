/**
 * Links across modules (absolute, relative, module aliases, re-exports) and
 * re-diagnosis of dependents when a module changes, appears or goes away.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { py, workspace } from './helpers';

const JUDGE = py`
  from hud import Environment

  judge = Environment("judge")

  @judge.template(id="verify")
  async def verify(expected: str):
      result = yield ""
      yield 1.0 if result["answer"] == expected else 0.0
`;

const actor = (importLine: string, call: string) => py`
  from hud import Environment
  ${importLine}

  actor = Environment("workspace")

  @actor.template(id="solve")
  async def solve():
      answer = yield "Say the secret."
      yield {"score": 0.0, "answer": answer}

  task = solve()
  task.verifier = ${call}
`;

describe('cross-file links', () => {
  const forms: [string, string, string][] = [
    ['absolute from-import', 'from envs.judge import verify', 'verify(expected="s")'],
    ['relative from-import', 'from .judge import verify', 'verify(expected="s")'],
    ['module alias', 'import envs.judge as j', 'j.verify(expected="s")'],
    ['dotted module', 'import envs.judge', 'envs.judge.verify(expected="s")'],
    ['package re-export', 'from envs import verify', 'verify(expected="s")'],
    ['package submodule', 'from envs import judge', 'judge.verify(expected="s")'],
  ];
  for (const [name, importLine, call] of forms) {
    test(name, async () => {
      const ws = await workspace({
        'envs/__init__.py': 'from .judge import verify\n',
        'envs/judge.py': JUDGE,
        'envs/env.py': actor(importLine, call),
      });
      const task = ws.analyzer.workspace.index().tasks.find((t) => t.ref === 'envs/env.py::task');
      assert.ok(task?.verifier, `${name}: no verifier link`);
      assert.equal(task.verifier.env, 'judge');
      assert.equal(task.verifier.templateId, 'verify');
      assert.ok(task.verifier.templateUri?.endsWith('/envs/judge.py'));
      assert.equal(task.verifier.sameEnvironment, false);
      assert.deepEqual(ws.codes('envs/env.py'), []);
    });
  }

  test('a task module without `import hud` still links tasks to imported templates', async () => {
    const ws = await workspace({
      'envs/judge.py': JUDGE,
      'envs/env.py': actor('from envs.judge import verify', 'verify(expected="s")'),
      'suites/main.py':
        'from envs.env import solve\nfrom envs.judge import verify\n\nsmoke = solve()\nsmoke.verifier = verify(unknown=1)\n',
    });
    const task = ws.analyzer.workspace.index().tasks.find((t) => t.ref === 'suites/main.py::smoke');
    assert.equal(task?.templateId, 'solve');
    assert.deepEqual(ws.codes('suites/main.py').sort(), ['task-bad-args', 'task-bad-args']);
  });

  test('dependents are re-diagnosed when the verifier module changes, disappears and comes back', async () => {
    const ws = await workspace({
      'envs/judge.py': JUDGE,
      'envs/env.py': actor('from envs.judge import verify', 'verify(expected="s")'),
    });
    const env = ws.path('envs/env.py');
    const judge = ws.path('envs/judge.py');
    assert.deepEqual(ws.codes('envs/env.py'), []);

    let affected = ws.analyzer.setFile(judge, JUDGE.replace('result["answer"]', 'result["trace"]'));
    assert.ok(affected.has(env), 'the importer is re-linked');
    assert.deepEqual(ws.codes('envs/env.py').sort(), ['verifier-field-missing']);

    affected = ws.analyzer.deleteFile(judge);
    assert.ok(affected.has(env));
    assert.deepEqual(ws.codes('envs/env.py'), [], 'an unresolvable import is outside the workspace: nothing to say');

    affected = ws.analyzer.setFile(judge, JUDGE.replace('def verify', 'def verify_renamed'));
    assert.ok(affected.has(env), 'creating the imported file re-links its importers');
    assert.deepEqual(ws.codes('envs/env.py'), ['verifier-unknown-template']);

    ws.analyzer.setFile(judge, JUDGE);
    assert.deepEqual(ws.codes('envs/env.py'), []);
  });

  test('JSON task files follow template changes in any module', async () => {
    const ws = await workspace({
      'envs/judge.py': JUDGE,
      'rows.jsonl': '{"env": "judge", "id": "verify", "args": {"expected": "x"}}\n',
    });
    assert.deepEqual(ws.codes('rows.jsonl'), []);
    const affected = ws.analyzer.setFile(ws.path('envs/judge.py'), JUDGE.replace('expected: str', 'wanted: str'));
    assert.ok(affected.has(ws.path('rows.jsonl')));
    assert.deepEqual(ws.codes('rows.jsonl'), ['task-bad-args', 'task-bad-args']);
  });
});
