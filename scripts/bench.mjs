#!/usr/bin/env node
// Runs benchmarks: `npm run bench -- NAME [ARGS...]` runs bench/NAME/run.ts
// (each prints one JSON document); without NAME, lists them.
//
// Benchmarks that time the language server's own code run it as shipped:
// bundled by esbuild with the production options of scripts/build.mjs. Under
// tsx every named function also pays a `__name` helper call and the code is
// not the code users run.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nativeExternals, nodeBundleOptions } from './esbuildNode.mjs';

const AS_SHIPPED = new Set(['index']);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benches = readdirSync(join(root, 'bench'), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, 'bench', d.name, 'run.ts')))
  .map((d) => d.name)
  .sort();
const [name, ...rest] = process.argv.slice(2);
if (!name || !benches.includes(name)) {
  console.error(
    `${name ? `unknown benchmark "${name}". ` : ''}usage: npm run bench -- NAME [ARGS]\nbenchmarks: ${benches.join(', ')}`,
  );
  process.exit(name ? 2 : 0);
}
const entry = join(root, 'bench', name, 'run.ts');
let argv = ['--import', 'tsx', entry];
if (AS_SHIPPED.has(name)) {
  // Inside the repository, so that the wasm files are found in node_modules as under tsx.
  const outfile = join(root, 'bench', 'results', `${name}.bundle.js`);
  await esbuild.build({ ...nodeBundleOptions(true), entryPoints: [entry], outfile, external: nativeExternals });
  argv = [outfile];
}
const r = spawnSync(process.execPath, [...argv, ...rest], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
