#!/usr/bin/env node
// Builds the production bundles and packs the extension into
// hud-studio-<version>.vsix with @vscode/vsce. The bundles already hold every
// dependency, so vsce runs with --no-dependencies (and never needs the
// network). `--out FILE` chooses the output path.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = resolve(
  args.includes('--out') ? args[args.indexOf('--out') + 1] : join(root, `${pkg.name}-${pkg.version}.vsix`),
);

function must(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit' });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    console.error(`${cmd} ${argv.join(' ')} failed with exit code ${r.status}`);
    process.exit(r.status ?? 1);
  }
}

must(process.execPath, ['scripts/build.mjs', '--production']);
for (const f of ['dist/extension.js', 'dist/engine.js', 'dist/server.js']) {
  if (!existsSync(join(root, f))) {
    console.error(`${f} is missing after the build; the .vsix would not activate`);
    process.exit(1);
  }
}
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
// Written next to the target first, so a failed run never leaves a half .vsix at `out`.
const tmp = `${out}.partial.vsix`;
must(process.execPath, [
  vsce,
  'package',
  '--no-dependencies',
  '--skip-license',
  '--allow-missing-repository',
  '--out',
  tmp,
]);
renameSync(tmp, out);
console.log(out);
