#!/usr/bin/env node
// Runs benchmarks: `npm run bench -- NAME [ARGS...]` runs bench/NAME/run.ts
// (each prints one JSON document); without NAME, lists them.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benches = readdirSync(join(root, 'bench'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'bench', d.name, 'run.ts')))
  .map((d) => d.name)
  .sort();
const [name, ...rest] = process.argv.slice(2);
if (!name || !benches.includes(name)) {
  console.error(`${name ? `unknown benchmark "${name}". ` : ''}usage: npm run bench -- NAME [ARGS]\nbenchmarks: ${benches.join(', ')}`);
  process.exit(name ? 2 : 0);
}
const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'bench', name, 'run.ts'), ...rest], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
