import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DiscoveredTask } from '../../../client/src/engine/discover';
import { HudStudioError, UsageError } from '../../../client/src/engine/errors';
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
