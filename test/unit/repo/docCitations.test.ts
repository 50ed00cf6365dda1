/**
 * Comments and documents cite the project's own docs/ (docs/architecture.md),
 * never a design document or peer checkout that lives outside the repository.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..', '..');
// Spelled in pieces so that this file does not match itself.
const outside = ['DESIGN' + '.md', '..' + '/shared', '/work' + '/shared', 'shared' + '/peers'];
const scanned = [
  'bench',
  'bin',
  'client',
  'docs',
  'examples',
  'media',
  'runtime',
  'scripts',
  'server',
  'syntaxes',
  'test',
];
const skipped = new Set(['node_modules', 'dist', '__pycache__', '.git']);
const textFile = /\.(ts|mts|js|mjs|cjs|py|md|json|jsonl|toml|sh|txt|ya?ml|css|html)$|^Dockerfile$/;

function* files(dir: string): Generator<string> {
  // The entries' own types: a stat after the listing fails on a probe file another test removed meanwhile.
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skipped.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (textFile.test(entry.name)) yield path;
  }
}

test('no source file or document cites a document outside the repository', () => {
  const paths = [
    join(root, 'README.md'),
    join(root, 'package.json'),
    ...scanned.flatMap((d) => [...files(join(root, d))]),
  ];
  assert.ok(paths.length > 200, `scanned ${paths.length} files`);
  const hits: string[] = [];
  for (const path of paths) {
    // Tests running beside this one write probe files and delete them (boundaries.test.ts): one gone is no source.
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw err;
    }
    text.split('\n').forEach((line, i) => {
      const found = outside.find((needle) => line.includes(needle));
      if (found) hits.push(`${relative(root, path)}:${i + 1}: cites ${found} (cite docs/ instead)`);
    });
  }
  assert.deepEqual(hits, []);
});

test('the documents that comments cite exist', () => {
  for (const doc of ['architecture.md', 'hud-protocol.md', 'trace-format.md']) {
    assert.ok(statSync(join(root, 'docs', doc)).size > 1000, `docs/${doc}`);
  }
});
