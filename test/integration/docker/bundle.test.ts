/**
 * The esbuild bundle (dist/cli.js) must drive Docker on its own: it is run
 * from a folder with no node_modules anywhere above it, holding only what the
 * packaged extension ships beside the bundle (dockerode loads its
 * protos by __dirname; the native ssh2/cpu-features addons stay out).
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { exitOf } from '../cli/cliHarness';
import { DOCKER_FIXTURES, REPO_ROOT, dockerReady, tempDir } from './support';

const DIST = join(REPO_ROOT, 'dist');

before(dockerReady);

test("the bundled CLI builds an environment's image and runs its rollout in Docker without node_modules", async () => {
  assert.ok(
    existsSync(join(DIST, 'cli.js')),
    'dist/cli.js is missing: run `npm run build` first (scripts/test.mjs does)',
  );
  const bundle = readFileSync(join(DIST, 'cli.js'), 'utf8');
  assert.doesNotMatch(
    bundle,
    /require\("ssh2"\)/,
    'ssh2 (plain JS that docker-modem loads eagerly) is bundled, not left external',
  );
  const home = tempDir('bundle');
  try {
    cpSync(join(DIST, 'cli.js'), join(home, 'cli.js'));
    cpSync(join(DIST, 'proto'), join(home, 'proto'), { recursive: true });
    const child = spawn(
      process.execPath,
      [
        join(home, 'cli.js'),
        'run',
        join(DOCKER_FIXTURES, 'dockerfile_env', 'env.py'),
        '--answer',
        'bundled',
        '--runtime',
        'docker',
        '--trace-dir',
        join(home, 'traces'),
        '--json',
      ],
      {
        cwd: home,
        env: { ...process.env, HUD_STUDIO_RUNTIME_DIR: join(REPO_ROOT, 'runtime', 'python'), NODE_PATH: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const r = await exitOf(child);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout) as {
      reward: number;
      phases: { substrate: { provider: string; image: string } }[];
    };
    assert.equal(json.reward, 1);
    assert.equal(json.phases[0]!.substrate.provider, 'docker');
    assert.match(
      json.phases[0]!.substrate.image,
      /^hud-studio-env:[0-9a-f]{16}$/,
      "the image came from the fixture's Dockerfile",
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
