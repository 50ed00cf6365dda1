#!/usr/bin/env node
// Lint and formatting checks: ESLint over the repository, then Prettier.
//
//   node scripts/lint.mjs         check only (the `lint` layer of `npm test`)
//   node scripts/lint.mjs --fix   apply ESLint fixes and Prettier formatting
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const FORMATTED = '**/*.{ts,mts,cts,js,mjs,cjs,json,css}';
const fix = process.argv.slice(2).includes('--fix');

const bin = (name) => join(root, 'node_modules', '.bin', name);

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit' });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

const prettier = (mode) =>
  run(bin('prettier'), [mode, '--ignore-path', '.prettierignore', '--log-level', 'warn', FORMATTED]);

// Prettier first so ESLint judges (and fixes) the formatted text.
if (fix && prettier('--write') !== 0) process.exit(1);
const eslint = run(bin('eslint'), ['--max-warnings', '0', ...(fix ? ['--fix'] : []), '.']);
const format = prettier('--check');
if (eslint !== 0 || format !== 0) {
  console.error(`\nlint failed${format !== 0 ? ' (formatting: `node scripts/lint.mjs --fix`)' : ''}`);
  process.exit(1);
}
console.log('lint: ESLint and Prettier are clean');
