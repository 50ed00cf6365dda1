/**
 * Calls the template's signature cannot accept, and task files bound only to
 * the environment of their own folder (as `run` loads them). The *args case
 * is the real SDK's behaviour: positional arguments collected in *args are
 * stored under its name and cannot be bound back by keyword when the task
 * starts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENV_HEADER, py, workspace } from './helpers';

const TEMPLATE = (id: string) => py`
  @env.template(id="${id}")
  async def ${id}(x: int = 0):
      yield "p"
      yield 1.0
`;

test('positional arguments that would land in *args are an error', async () => {
  const ws = await workspace({
    'env.py': `${ENV_HEADER}${py`
      @env.template()
      async def t(first, *parts):
          yield "p"
          yield 1.0

      ok = t("a")
      bad = t("a", "b", "c")
    `}`,
  });
  const found = ws.problems('env.py').filter((p) => p.code === 'task-args-into-varargs');
  assert.equal(found.length, 1);
  assert.equal(found[0]!.severity, 'error');
  assert.equal(found[0]!.range.start.line, 9);
  assert.match(found[0]!.message, /would receive 2 arguments in \*parts/);
});

test("a task file binds to its own folder's environment, not another folder's", async () => {
  const ws = await workspace({
    'a/env.py': `${ENV_HEADER}${TEMPLATE('solve')}`,
    'a/tasks.jsonl': '{"env": "workspace", "id": "solve", "args": {"x": 1}}\n',
    'b/env.py': `${ENV_HEADER}${TEMPLATE('solve')}${TEMPLATE('only_b')}`,
    'c/tasks.jsonl': '{"env": "workspace", "id": "only_b", "args": {}}\n',
  });
  const index = ws.analyzer.workspace.index();
  const own = index.tasks.find((t) => t.ref === 'a/tasks.jsonl::0');
  assert.ok(own?.templateUri?.endsWith('/a/env.py'), `bound to ${own?.templateUri}`);
  assert.deepEqual(ws.codes('a/tasks.jsonl'), []);

  const elsewhere = index.tasks.find((t) => t.ref === 'c/tasks.jsonl::0');
  assert.equal(elsewhere?.templateUri, undefined, 'not linked to b/env.py');
  const problems = ws.problems('c/tasks.jsonl');
  assert.deepEqual(
    problems.map((p) => [p.code, p.severity]),
    [['task-file-other-folder', 'warning']],
  );
  assert.match(problems[0]!.message, /defined in b\/env\.py, not beside this task file.*--module b\/env\.py/);
});
