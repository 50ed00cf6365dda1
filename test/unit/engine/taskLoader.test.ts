import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverTasks, type DiscoveredTask } from '../../../client/src/engine/discover';
import { HudStudioError, UsageError } from '../../../client/src/engine/errors';
import { LocalProvider } from '../../../client/src/engine/providers/local';
import { resolveTask, taskFileTarget, taskIdentity } from '../../../client/src/engine/taskLoader';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-unit-engine-'));
process.on('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));

const row = (selector: string): DiscoveredTask => ({
  ref: `env.py::${selector}`,
  selector,
  env: 'workspace',
  id: 'solve',
  args: { n: 1 },
  slug: 'solve-1',
  description: undefined,
  runtimeConfig: null,
  source: 'src',
  sourceHash: 'h',
  line: 3,
  verifier: null,
});

describe('task references', () => {
  test('one task: the reference may be omitted', () => {
    assert.equal(resolveTask([row('task')], { displayPath: 'env.py', selector: undefined }).selector, 'task');
  });

  test('several tasks without a reference: a usage error lists every reference', () => {
    assert.throws(
      () => resolveTask([row('a'), row('suite[0]'), row('suite[1]')], { displayPath: 'env.py', selector: undefined }),
      (e: unknown) =>
        e instanceof UsageError &&
        /defines 3 tasks/.test(e.message) &&
        e.message.includes('env.py::suite[1]') &&
        e.message.includes('env.py::a'),
    );
  });

  test('picks the named row; an unknown name lists what exists', () => {
    const tasks = [row('a'), row('suite[1]'), row('4')];
    assert.equal(resolveTask(tasks, { displayPath: 'env.py', selector: 'suite[1]' }).selector, 'suite[1]');
    assert.equal(resolveTask(tasks, { displayPath: 'env.py', selector: '4' }).selector, '4');
    assert.throws(
      () => resolveTask(tasks, { displayPath: 'env.py', selector: 'b' }),
      (e: unknown) => e instanceof UsageError && /no task "b"/.test(e.message) && e.message.includes('env.py::4'),
    );
  });

  test('a file without tasks is a task-ref error naming the file', () => {
    assert.throws(
      () => resolveTask([], { displayPath: 'x/env.py', selector: undefined }),
      (e: unknown) => e instanceof HudStudioError && e.code === 'task-ref' && e.location?.file === 'x/env.py',
    );
  });

  test('taskFileTarget checks the file, the selector, and finds env.py beside a .jsonl', () => {
    const dir = mkdtempSync(join(SCRATCH, 'hs-ref-'));
    writeFileSync(join(dir, 'env.py'), '');
    writeFileSync(join(dir, 'tasks.jsonl'), '');
    const t = taskFileTarget('env.py::suite[02]', dir);
    assert.deepEqual(
      [t.file, t.envFile, t.envDir, t.selector],
      [join(dir, 'env.py'), join(dir, 'env.py'), dir, 'suite[2]'],
    );
    const rows = taskFileTarget('tasks.jsonl::3', dir);
    assert.deepEqual([rows.envFile, rows.selector], [join(dir, 'env.py'), '3']);
    assert.equal(taskFileTarget('env.py', dir).selector, undefined);
    assert.throws(
      () => taskFileTarget('missing.py::t', dir),
      (e: unknown) => e instanceof UsageError && /missing.py: no such file/.test(e.message),
    );
    assert.throws(
      () => taskFileTarget('env.py::1bad', dir),
      (e: unknown) => e instanceof UsageError && /invalid selector "1bad"/.test(e.message),
    );
    assert.throws(() => taskFileTarget('::t', dir), UsageError);
  });

  test("an environment's folder stands for its env.py; a folder without one says what it lacks", () => {
    const dir = mkdtempSync(join(SCRATCH, 'hs-ref-'));
    mkdirSync(join(dir, 'env'));
    writeFileSync(join(dir, 'env', 'env.py'), '');
    mkdirSync(join(dir, 'empty'));
    const t = taskFileTarget('env::task', dir);
    assert.deepEqual(
      [t.displayPath, t.file, t.envFile, t.envDir, t.selector],
      [join('env', 'env.py'), join(dir, 'env', 'env.py'), join(dir, 'env', 'env.py'), join(dir, 'env'), 'task'],
    );
    assert.equal(taskFileTarget('.', join(dir, 'env')).displayPath, 'env.py');
    assert.equal(taskFileTarget(join(dir, 'env'), '/').file, join(dir, 'env', 'env.py'));
    assert.throws(
      () => taskFileTarget('empty', dir),
      (e: unknown) =>
        e instanceof UsageError && /^empty is a folder with neither env\.py nor task\.toml$/.test(e.message),
    );
  });

  test('the identity carries source, hash and runtime_config', () => {
    const id = taskIdentity({ ...row('t'), runtimeConfig: { limits: { run_timeout_s: 5 } } }, 'env.py::t');
    assert.deepEqual(id, {
      ref: 'env.py::t',
      kind: 'hud',
      env: 'workspace',
      id: 'solve',
      args: { n: 1 },
      slug: 'solve-1',
      sourceHash: 'h',
      source: 'src',
      runtimeConfig: { limits: { run_timeout_s: 5 } },
    });
  });
});

describe('task-file rows that do not fit their templates (real python discovery)', () => {
  const ENV_PY = [
    'from hud import Environment',
    'env = Environment("rows")',
    '',
    '@env.template()',
    'async def echo(word: str, *, times: int = 1):',
    '    answer = yield word',
    '    yield 1.0',
    '',
  ].join('\n');

  async function discoverFile(rows: string): Promise<DiscoveredTask[]> {
    const dir = mkdtempSync(join(SCRATCH, 'rows-'));
    writeFileSync(join(dir, 'env.py'), ENV_PY);
    writeFileSync(join(dir, 'tasks.jsonl'), rows);
    const substrate = await new LocalProvider({ tempRoot: SCRATCH }).acquire(
      { envFile: join(dir, 'env.py'), envDir: dir, runtimeConfig: null },
      { rolloutId: 'task-loader-test', phase: 'actor', log: () => undefined },
    );
    try {
      return await discoverTasks(substrate, {
        displayPath: 'tasks.jsonl',
        hostDir: dir,
        file: `${substrate.workdir}/tasks.jsonl`,
        module: substrate.envPath,
      });
    } finally {
      await substrate.release();
    }
  }

  test('every row is listed; a bad one carries why and its line, a good one nothing', async () => {
    const tasks = await discoverFile(
      [
        '{"env": "rows", "id": "echo", "args": {"word": "a"}}',
        '',
        '{"env": "rows", "id": "echo", "args": {"times": 2}}',
        '{"env": "rows", "id": "echo", "args": {"word": "a", "loud": true}}',
        '{"env": "rows", "id": "shout", "args": {}}',
        '{"env": "elsewhere", "id": "echo", "args": {}}',
        '{"env": "rows", "id": "echo", "args": {"word": "b"}, "verifier": {"env": "rows", "id": "echo", "args": {}}}',
      ].join('\n'),
    );
    assert.deepEqual(
      tasks.map((t) => [t.selector, t.rowError?.line ?? null]),
      [
        ['0', null],
        ['1', 3],
        ['2', 4],
        ['3', 5],
        ['4', 6],
        ['5', 7],
      ],
    );
    const why = tasks.map((t) => t.rowError?.message ?? '');
    assert.match(why[1]!, /template 'echo' \(env 'rows'\): missing a required argument: 'word'/);
    assert.match(why[2]!, /unexpected argument\(s\) 'loud'/);
    assert.match(why[3]!, /environment 'rows' has no template 'shout' \(templates: echo\)/);
    assert.match(why[4]!, /no environment named 'elsewhere' \(defined: rows\)/);
    assert.match(why[5]!, /^verifier: template 'echo' \(env 'rows'\): missing a required argument: 'word'/);
    // The bad row keeps its args as written and the slug the SDK gives them.
    assert.deepEqual([tasks[1]!.args, tasks[1]!.slug.startsWith('echo-')], [{ times: 2 }, true]);
    assert.equal(tasks[3]!.slug, 'shout');
  });

  test('a line that is not JSON, or a row without env/id, refuses the whole file with its line', async () => {
    for (const [text, line] of [
      ['{"env": "rows", "id": "echo", "args": {"word": "a"}}\n{oops\n', 2],
      ['{"env": "rows", "args": {}}\n', 1],
    ] as const) {
      await assert.rejects(
        discoverFile(text),
        (e: unknown) =>
          e instanceof HudStudioError &&
          e.code === 'task-load' &&
          e.location?.file.endsWith('tasks.jsonl') === true &&
          e.location.line === line &&
          e.message.startsWith('tasks.jsonl:'),
        text,
      );
    }
  });
});
