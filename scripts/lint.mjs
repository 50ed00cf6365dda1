#!/usr/bin/env node
// Lint and formatting checks: ESLint over the repository, then Prettier over
// every path that .format-pending does not list.
//
//   node scripts/lint.mjs               check only (the `lint` layer of `npm test`)
//   node scripts/lint.mjs --fix         apply ESLint fixes and Prettier formatting (pending paths excepted)
//   node scripts/lint.mjs --format-all  the one repository-wide Prettier pass: formats the pending paths
//                                       too, deletes .format-pending, then checks everything
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pendingFile, root } from './formatScope.mjs';

const FORMATTED = '**/*.{ts,mts,cts,js,mjs,cjs,json,css}';
const args = process.argv.slice(2);
const formatAll = args.includes('--format-all');
const fix = args.includes('--fix') || formatAll;

const bin = (name) => join(root, 'node_modules', '.bin', name);

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit' });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function prettier(mode, withPending) {
  const ignores = ['--ignore-path', '.prettierignore'];
  if (withPending && existsSync(pendingFile)) ignores.push('--ignore-path', '.format-pending');
  return run(bin('prettier'), [mode, ...ignores, '--log-level', 'warn', FORMATTED]);
}

if (formatAll) {
  if (prettier('--write', false) !== 0) process.exit(1);
  rmSync(pendingFile, { force: true });
  console.log('Formatted the whole repository and removed .format-pending; commit the result.');
}
if (fix && !formatAll && prettier('--write', true) !== 0) process.exit(1);

const eslint = run(bin('eslint'), ['--max-warnings', '0', ...(fix ? ['--fix'] : []), '.']);
const format = prettier('--check', true);
if (eslint !== 0 || format !== 0) {
  console.error(`\nlint failed${format !== 0 ? ' (formatting: `node scripts/lint.mjs --fix`)' : ''}`);
  process.exit(1);
}
console.log('lint: ESLint and Prettier are clean');
