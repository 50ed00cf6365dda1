#!/usr/bin/env node
// README's main job: a real rollout of the bundled verifier example
// (docs/hud-protocol.md, two environments: actor "workspace", verifier "judge") with
// the answer "secret", on Docker when a daemon answers, else on the local
// runtime. Builds dist/ first when it is missing or older than the sources.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

function newestMtime(dir) {
  let newest = 0;
  if (!existsSync(dir)) return newest;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = statSync(p);
    newest = Math.max(newest, st.isDirectory() ? newestMtime(p) : st.mtimeMs);
  }
  return newest;
}

const sources = Math.max(newestMtime(join(root, 'client', 'src')), newestMtime(join(root, 'server', 'src')));
if (!existsSync(cli) || statSync(cli).mtimeMs < sources) {
  console.log('building dist/ ...');
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (b.status !== 0) process.exit(b.status ?? 1);
}

const args = [
  'run',
  'examples/secret-verifier/env.py::task',
  '--answer',
  'marigold',
  '--runtime',
  'auto',
  ...process.argv.slice(2),
];
console.log(`$ hud-studio ${args.join(' ')}\n`);
const r = spawnSync(process.execPath, [join(root, 'bin', 'hud-studio.js'), ...args], { cwd: root, stdio: 'inherit' });
const code = r.status ?? 1;
console.log(
  code === 0
    ? '\ndemo: the rollout completed (see the reward and the trace path above)'
    : `\ndemo: hud-studio exited with code ${code}`,
);
process.exit(code);
