/**
 * The shipped bundles need no native Node module (docs/engine.md): the only
 * packages they still require at run time are `vscode` and the optional
 * native parts of ssh2 that esbuild leaves out (scripts/esbuildNode.mjs),
 * which ssh2 loads in try/catch: ssh2 bundled that way still logs in and
 * runs a command. The CLI bundle starts from a folder with no node_modules
 * anywhere above it, so nothing else is needed either.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nativeExternals, nodeBundleOptions } from '../../../scripts/esbuildNode.mjs';

const DIST = join(__dirname, '..', '..', '..', 'dist');
const BUNDLES = ['extension.js', 'engine.js', 'cli.js', 'server.js'];

/** Module names a bundle requires at run time (not the ones inside code strings that libraries generate). */
function requiredModules(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![`'"\w.])require\("([^"]+)"\)/g)) out.add(m[1]!);
  return out;
}

test('the bundles require only Node built-ins, vscode and the left-out native parts of ssh2', () => {
  const allowed = new Set<string>(['vscode', ...nativeExternals]);
  for (const name of BUNDLES) {
    const needed = [...requiredModules(readFileSync(join(DIST, name), 'utf8'))].filter(
      (m) => !m.startsWith('node:') && !builtinModules.includes(m) && !allowed.has(m),
    );
    assert.deepEqual(needed, [], `dist/${name} requires packages that are not bundled`);
  }
});

test('the CLI bundle starts where no node_modules can be found', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-bundle-'));
  try {
    copyFileSync(join(DIST, 'cli.js'), join(dir, 'cli.js'));
    const r = spawnSync(process.execPath, [join(dir, 'cli.js'), '--help'], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /hud-studio/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('ssh2 bundled as the engine bundles it logs in and runs a command without its native parts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-ssh2-bundle-'));
  try {
    // Same options and externals as the shipped bundles; run from a folder where the externals cannot resolve.
    await build({
      ...nodeBundleOptions(false),
      entryPoints: [require.resolve('ssh2')],
      external: nativeExternals,
      outfile: join(dir, 'ssh2.js'),
      logLevel: 'silent',
    });
    const script = `
      const { Client, Server, utils } = require('./ssh2.js');
      // ssh2's generator makes an unreadable ed25519 pair about 1 time in 256 (mscdex/ssh2#1513).
      let host;
      do host = utils.generateKeyPairSync('ed25519');
      while (utils.parseKey(host.private) instanceof Error || utils.parseKey(host.public) instanceof Error);
      const server = new Server({ hostKeys: [host.private] }, (c) => {
        c.on('authentication', (ctx) => ctx.accept());
        c.on('session', (accept) => accept().on('exec', (ok, _no, info) => {
          const s = ok(); s.write('ran ' + info.command); s.exit(0); s.end();
        }));
      });
      server.listen(0, '127.0.0.1', () => {
        const client = new Client();
        client.on('ready', () => client.exec('true', (err, s) => {
          let out = '';
          s.on('data', (d) => (out += d)).on('close', () => { console.log(out); client.end(); server.close(); });
        }));
        client.connect({ host: '127.0.0.1', port: server.address().port, username: 'agent' });
      });`;
    const r = spawnSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'ran true');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
