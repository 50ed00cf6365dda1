#!/usr/bin/env node
// Bundles the extension host, its engine (loaded on the first run), the
// language server, the CLI and the trace explorer webview with esbuild, and puts the wasm files they load by path
// beside them. `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inlineWorkerPlugin } from './esbuildInlineWorker.mjs';
import { nativeExternals, nodeBundleOptions } from './esbuildNode.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

const node = nodeBundleOptions(production);

const entries = [
  { in: 'client/src/extension.ts', out: 'extension', external: ['vscode', ...nativeExternals] },
  { in: 'server/src/server.ts', out: 'server', external: [...nativeExternals] },
  { in: 'client/src/cli.ts', out: 'cli', external: ['vscode', ...nativeExternals] },
  // The runner and the engine under it (dockerode, ssh2, gRPC): loaded by the extension when the first run starts.
  { in: 'client/src/ui/runner.ts', out: 'engine', external: ['vscode', ...nativeExternals] },
];
const web = [
  { in: 'media/src/explorer/main.ts', out: 'media/explorer' },
  { in: 'media/src/jobView/main.ts', out: 'media/jobView' },
];

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });

const contexts = [];
for (const e of [...entries, ...web]) {
  if (!existsSync(join(root, e.in))) throw new Error(`build entry ${e.in} is missing`);
}
for (const e of entries) {
  contexts.push(
    await esbuild.context({ ...node, entryPoints: { [e.out]: join(root, e.in) }, outdir: dist, external: e.external }),
  );
}
for (const e of web) {
  contexts.push(
    await esbuild.context({
      bundle: true,
      platform: 'browser',
      target: 'es2022',
      format: 'iife',
      sourcemap: true,
      minify: production,
      logLevel: 'warning',
      entryPoints: { [e.out]: join(root, e.in) },
      outdir: dist,
      loader: { '.css': 'text' },
      plugins: [inlineWorkerPlugin({ minify: production })],
    }),
  );
}

function copyAssets() {
  const assets = [
    ['node_modules/web-tree-sitter/tree-sitter.wasm', 'tree-sitter.wasm'],
    ['node_modules/tree-sitter-python/tree-sitter-python.wasm', 'tree-sitter-python.wasm'],
  ];
  for (const [from, to] of assets) cpSync(join(root, from), join(dist, to));
  // dockerode's BuildKit session code loads these by __dirname.
  const protoDir = join(root, 'node_modules/dockerode/lib/proto');
  if (existsSync(protoDir)) cpSync(protoDir, join(dist, 'proto'), { recursive: true });
}

if (watch) {
  copyAssets();
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('watching...');
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  copyAssets();
}
