/**
 * What the index records: environments, templates (signature, prompt, result
 * keys, keys read), tasks and their references, verifier links, JSON task
 * files and Harbor tasks; and what it must ignore.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { py, workspace } from './helpers';

const ENV = py`
  import hud as h
  from hud import Taskset

  actor = h.Environment("workspace")

  @actor.template(id="solve", description="Write the secret")
  async def solve(level: int, mode: str = "fast", *extra, retries: int = 2, **kw):
      answer = yield "Write the secret\\nto the target."
      yield {"score": 1.0, "answer": answer, "level": level}

  @actor.template()
  async def check():
      result = yield ""
      ok = result["answer"] == "x" and result.get("level")
      yield 1.0 if ok else 0.0

  task = solve(1)
  task.verifier = check()
  pair = (solve(2), solve(level=3, verifier=check()))
  suite = Taskset("suite", [solve(4), not_a_task, solve(5)])
  listed = [
      solve(6),  # a comment between elements
      solve(7),
  ]
`;

describe('index', () => {
  test('environments and templates with signature, prompt, result keys and reads', async () => {
    const ws = await workspace({ 'envs/env.py': ENV });
    const index = ws.analyzer.workspace.index();
    assert.deepEqual(
      index.environments.map((e) => [e.name, e.variable]),
      [['workspace', 'actor']],
    );
    const solve = index.templates.find((t) => t.id === 'solve')!;
    assert.equal(solve.env, 'workspace');
    assert.equal(solve.description, 'Write the secret');
    assert.equal(solve.promptPreview, 'Write the secret\nto the target.');
    assert.equal(solve.agentless, false);
    assert.deepEqual(solve.resultKeys, ['score', 'answer', 'level']);
    assert.deepEqual(solve.params, [
      { name: 'level', kind: 'positional', annotation: 'int' },
      { name: 'mode', kind: 'positional', annotation: 'str', default: '"fast"' },
      { name: 'extra', kind: 'varargs' },
      { name: 'retries', kind: 'keyword', annotation: 'int', default: '2' },
      { name: 'kw', kind: 'varkw' },
    ]);
    assert.equal(solve.range.start.line, 6, 'the def line');
    assert.equal(solve.gradeYieldRange?.start.line, 8);
    const check = index.templates.find((t) => t.functionName === 'check')!;
    assert.equal(check.id, 'check', 'a bare @env.template takes the function name');
    assert.equal(check.agentless, true);
    assert.deepEqual(check.readsKeys, ['answer', 'level']);
  });

  test('tasks: variables, tuples, Taskset and lists, with references and verifier links', async () => {
    const ws = await workspace({ 'envs/env.py': ENV });
    const tasks = ws.analyzer.workspace.index().tasks;
    assert.deepEqual(
      tasks.map((t) => t.ref),
      [
        'envs/env.py::task',
        'envs/env.py::pair[0]',
        'envs/env.py::pair[1]',
        'envs/env.py::suite[0]',
        'envs/env.py::suite[2]',
        'envs/env.py::listed[0]',
        'envs/env.py::listed[1]',
      ],
    );
    const task = tasks[0]!;
    assert.equal(task.kind, 'hud');
    assert.equal(task.templateId, 'solve');
    assert.equal(task.env, 'workspace');
    assert.equal(task.verifier?.templateId, 'check');
    assert.equal(task.verifier?.sameEnvironment, true);
    assert.equal(tasks[2]!.verifier, undefined, 'verifier= is an argument like any other (here it goes to **kw)');
    assert.equal(tasks[1]!.verifier, undefined);
    assert.deepEqual(ws.codes('envs/env.py'), []);
  });

  test('import forms that count: aliases, from-imports, submodules', async () => {
    const forms = [
      'from hud import Environment as E\nenv = E("a")\n',
      'from hud.environment import Environment\nenv = Environment(name="a")\n',
      'import hud\nenv = hud.Environment("a")\n',
      'import hud.environment\nenv = hud.environment.Environment("a")\n',
    ];
    for (const head of forms) {
      const ws = await workspace({
        'e.py': `${head}\n@env.template(id="t")\nasync def t():\n    yield "p"\n    yield 1.0\n\nx = t()\n`,
      });
      const index = ws.analyzer.workspace.index();
      assert.deepEqual(
        index.environments.map((e) => e.name),
        ['a'],
        head,
      );
      assert.deepEqual(
        index.tasks.map((t) => t.ref),
        ['e.py::x'],
        head,
      );
    }
  });

  test('files that do not import hud never produce templates or tasks', async () => {
    const ws = await workspace({
      'other.py': py`
        from flask import Flask
        app = Flask("x")

        @app.template(id="page")
        async def page():
            yield "a"
            yield 1.0

        home = page()
      `,
    });
    const index = ws.analyzer.workspace.index();
    assert.deepEqual(index.templates, []);
    assert.deepEqual(index.tasks, []);
    assert.deepEqual(ws.codes('other.py'), []);
  });

  test('.jsonl and .json task files bind rows to templates by environment and id', async () => {
    const ws = await workspace({
      'envs/env.py': ENV,
      'tasks.jsonl':
        '{"env": "workspace", "id": "solve", "args": {"level": 1}}\n\n{"env": "workspace", "id": "solve", "args": {"colour": 1}}\n',
      'more.json':
        '[\n  {"env": "workspace", "id": "check", "args": {}},\n  {"env": "elsewhere", "id": "x", "args": {}}\n]\n',
      'package.json': '{"name": "not-tasks", "version": "1.0.0"}\n',
    });
    const tasks = ws.analyzer.workspace.index().tasks.filter((t) => !t.ref.startsWith('envs/'));
    assert.deepEqual(
      tasks.map((t) => t.ref),
      ['more.json::0', 'more.json::1', 'tasks.jsonl::0', 'tasks.jsonl::1'],
    );
    assert.equal(tasks[0]!.range.start.line, 1);
    assert.equal(tasks[3]!.range.start.line, 2, 'blank lines do not count as rows but keep their line');
    assert.ok(tasks[0]!.templateUri?.endsWith('/envs/env.py'));
    assert.equal(tasks[1]!.templateUri, undefined, 'an environment outside the workspace stays unresolved');
    const bad = ws.problems('tasks.jsonl');
    // solve takes **kw, so "colour" is accepted; the required "level" is missing.
    assert.deepEqual(
      bad.map((p) => [p.code, p.range.start.line]),
      [['task-bad-args', 2]],
    );
    assert.match(bad[0]!.message, /row 1: .*missing the required argument "level"/);
    assert.deepEqual(ws.codes('more.json'), []);
  });

  test('Harbor tasks are in the index with their mode', async () => {
    const ws = await workspace(
      {
        'tasks/hello/task.toml': '[task]\nname = "acme/hello"\n[verifier]\nenvironment_mode = "separate"\n',
        'tasks/bare/task.toml': '',
      },
      [
        'tasks/hello/instruction.md',
        'tasks/hello/tests/test.sh',
        'tasks/hello/tests/Dockerfile',
        'tasks/bare/instruction.md',
        'tasks/bare/tests/test.sh',
      ],
    );
    const tasks = ws.analyzer.workspace.index().tasks;
    assert.deepEqual(
      tasks.map((t) => [t.ref, t.kind, t.label, t.environmentMode]),
      [
        ['tasks/bare', 'harbor', 'bare', 'shared'],
        ['tasks/hello', 'harbor', 'acme/hello', 'separate'],
      ],
    );
  });
});
