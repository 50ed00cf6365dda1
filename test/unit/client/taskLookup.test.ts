import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { IndexedTask } from '../../../common/lspMessages';
import { findTask } from '../../../client/src/taskLookup';

const task = (ref: string, uri: string): IndexedTask => ({
  ref,
  kind: 'hud',
  label: ref.split('::').at(-1)!,
  uri,
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
});

test('a reference two folders share is told apart by the file, and falls back to the first without one', () => {
  const a = task('env.py::task', 'file:///a/env.py');
  const b = task('env.py::task', 'file:///b/env.py');
  const other = task('env.py::other', 'file:///a/env.py');
  const tasks = [a, other, b];
  assert.equal(findTask(tasks, 'env.py::task', 'file:///b/env.py'), b);
  assert.equal(findTask(tasks, 'env.py::task', 'file:///a/env.py'), a);
  assert.equal(findTask(tasks, 'env.py::task'), a);
  // A URI spelled otherwise than the index spells it still finds a task with that reference.
  assert.equal(findTask(tasks, 'env.py::task', 'file:///c/env.py'), a);
  assert.equal(findTask(tasks, 'env.py::missing', 'file:///a/env.py'), undefined);
});
