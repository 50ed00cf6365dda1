/**
 * Tasks written out with the SDK's `Task(env=..., id=..., args=...)` name
 * their template by environment and id. The index lists them like template
 * calls (discovery finds them the same way), links the template and the
 * verifier, and checks `args=` against the template's parameters.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agrees, indexed, runtimeError, VERIFIABLE_ENV } from './discovery';
import { py, workspace } from './helpers';

const WITH_TASK = VERIFIABLE_ENV.replace('from hud import Environment', 'from hud import Environment, Task');

test('Task(env=, id=, args=) is a task of the template with that environment and id', async () => {
  const { rows, problems } = await agrees(
    WITH_TASK +
      py`
        written = Task(env="workspace", id="solve", args={"level": 1})
        judged = Task(env="workspace", id="solve", args={"level": 2}, verifier=check(expected="x"))
        later = Task(env="workspace", id="solve", args={"level": 3})
        later.verifier = audit(expected="y")
        by_name = solve(level=4)
        by_name.verifier = Task(env="workspace", id="check", args={"expected": "z"})
      `,
  );
  assert.deepEqual(rows, [
    { ref: 'written', templateId: 'solve', verifier: null },
    { ref: 'judged', templateId: 'solve', verifier: 'check' },
    { ref: 'later', templateId: 'solve', verifier: 'audit' },
    { ref: 'by_name', templateId: 'solve', verifier: 'check' },
  ]);
  assert.deepEqual(
    problems.map((p) => p.code),
    [],
  );
});

test('the template of a Task is found in another module, and the task links to it', async () => {
  const ws = await workspace({
    'envs/env.py': VERIFIABLE_ENV,
    'tasks.py': py`
      from hud.eval import Task
      import envs.env

      elsewhere = Task(env="workspace", id="check", args={"expected": "x"})
    `,
  });
  const [task] = ws.analyzer.workspace.index().tasks.filter((t) => t.ref.startsWith('tasks.py::'));
  assert.equal(task?.templateUri, 'file:///ws/envs/env.py');
  assert.equal(task?.templateId, 'check');
  assert.deepEqual(ws.codes('tasks.py'), []);
});

test('args= is checked against the template, and an unknown template is a warning on a listed task', async () => {
  const source =
    WITH_TASK +
    py`
      typo = Task(env="workspace", id="solve", args={"levle": 1})
      nowhere = Task(env="workspace", id="slove", args={})
      computed = Task(env="workspace", id="solve", args=dict(level=1))
    `;
  const { rows, problems } = await indexed(source);
  assert.deepEqual(
    rows.map((r) => [r.ref, r.templateId]),
    [
      ['typo', 'solve'],
      ['nowhere', 'slove'],
      ['computed', 'solve'],
    ],
  );
  const lines = source.split('\n');
  assert.deepEqual(
    problems.map((p) => [p.code, lines[p.range.start.line]!.split(' =')[0]]),
    [
      ['task-bad-args', 'typo'],
      ['task-bad-args', 'typo'],
      ['task-unknown-template', 'nowhere'],
    ],
    'args=dict(...) is not read, so it is not judged',
  );
  assert.match(problems[0]!.message, /^args=: solve\(\) got an unexpected keyword argument "levle"/);
  assert.match(problems[2]!.message, /no template "slove" in environment "workspace".*fix:/);
  // Discovery lists the unknown one too: the Task is made; only running it would fail.
  await agrees(source);
});

test('a Task with a verifier of its own, used as a verifier, is a nested verifier', async () => {
  const source =
    WITH_TASK +
    py`
      inner = Task(env="workspace", id="check", args={"expected": "a"}, verifier=audit(expected="b"))
      task = solve(level=1)
      task.verifier = inner
    `;
  const { problems } = await indexed(source);
  assert.ok(
    problems.some((p) => p.code === 'verifier-nested'),
    problems.map((p) => p.code).join(),
  );
  assert.match(runtimeError(source), /nested verifier/);
});

test("Task is only the SDK's: a Task of another package is not read", async () => {
  const { rows } = await indexed(
    VERIFIABLE_ENV +
      py`
        from mylib import Task

        mine = Task(env="workspace", id="solve", args={"level": 1})
      `,
  );
  assert.deepEqual(rows, []);
});

test('a Task of an environment the module builds inside a function is no unknown template; elsewhere it is', async () => {
  // The SDK's own tests build their environment in a fixture and name its templates with Task(env=..., id=...).
  const fixture = py`
    from hud import Environment as Env
    from hud.eval import Task

    SESSION = Task(env="sessions", id="echo")
    CHECKED = Task(env="other", id="solve", verifier=Task(env="sessions", id="check"))


    def make_env():
        env = Env(name='sessions')

        @env.template()
        async def echo(tag: str):
            yield f"go {tag}"
            yield 1.0

        return env
  `;
  const ws = await workspace({ 'tests/test_sessions.py': fixture, 'tasks.py': TASKS_ELSEWHERE });
  assert.deepEqual(ws.codes('tests/test_sessions.py'), ['task-unknown-template'], 'only env="other" is unknown');
  // The same Task in a module that builds no such environment is reported: the index cannot vouch for it there.
  assert.deepEqual(ws.codes('tasks.py'), ['task-unknown-template']);
  // An environment the module builds at its top level has its templates read: a typo there is still one.
  const top = await workspace({
    'env.py': py`
      from hud import Environment, Task

      env = Environment("sessions")
      typo = Task(env="sessions", id="ecko")


      def another():
          return Environment("sessions")
    `,
  });
  assert.deepEqual(top.codes('env.py'), ['task-unknown-template']);
});

const TASKS_ELSEWHERE = py`
  from hud.eval import Task

  SESSION = Task(env="sessions", id="echo")
`;
