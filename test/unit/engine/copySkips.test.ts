import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSkippedDirName, skipCopied } from '../../../client/src/engine/providers/copySkips';

test('caches, VCS folders and our traces stay out of a copy wherever they sit', () => {
  for (const rel of [
    '.git',
    'node_modules',
    'pkg/node_modules',
    'a/b/__pycache__',
    '.venv',
    '.hud-studio',
    'x/.pytest_cache',
  ])
    assert.equal(skipCopied(rel, true), true, rel);
});

test('files, and folders that only look like a skipped one, are copied', () => {
  for (const rel of ['node_modules', '.git', '__pycache__'])
    assert.equal(skipCopied(rel, false), false, `${rel} as a file`);
  for (const rel of ['node_modules_old', 'src/git', 'venv', '__pycache__x/y', 'node_modules/pkg'])
    assert.equal(skipCopied(rel, true), false, rel);
});

test('the local runtime asks by a folder name alone', () => {
  assert.equal(isSkippedDirName('.mypy_cache'), true);
  assert.equal(isSkippedDirName('tests'), false);
});
