#!/usr/bin/env node
// The whole test suite, from a fresh clone: installs what the tests need when
// it is missing (node modules, Docker engine + base image, Chromium,
// code-server), lints, builds, then runs the Python runtime tests and the
// TypeScript unit, integration and end-to-end tests.
//
//   node scripts/test.mjs                 everything
//   node scripts/test.mjs --only unit     one layer (lint|python|unit|browser|integration|compose-v2|e2e|newer-docker)
//   node scripts/test.mjs --skip-setup    do not install anything
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { composeV2Config, userDockerConfig } from './composeV2Config.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const skipSetup = args.includes('--skip-setup');
const layers = only
  ? [only]
  : ['lint', 'python', 'unit', 'browser', 'integration', 'compose-v2', 'e2e', 'newer-docker'];
const needsDocker = layers.some((l) => ['integration', 'compose-v2', 'e2e', 'newer-docker'].includes(l));
const needsBrowser = layers.some((l) => l === 'e2e' || l === 'browser');

// Where CI's time goes (its budget is about 40 minutes): each setup step and layer prints its wall time.
const timings = [];
function timed(label, fn) {
  const t0 = Date.now();
  try {
    return fn();
  } finally {
    const s = (Date.now() - t0) / 1000;
    timings.push([label, s]);
    console.log(`[test] ${label}: ${s.toFixed(0)} s`);
  }
}

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: 'inherit', ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}
function must(cmd, argv, opts) {
  const code = run(cmd, argv, opts);
  if (code !== 0) {
    console.error(`\n${cmd} ${argv.join(' ')} failed with exit code ${code}`);
    process.exit(code);
  }
}
function files(dir, suffix) {
  const out = [];
  const walk = (d) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        if (name !== 'fixtures' && name !== 'node_modules') walk(p);
      } else if (name.endsWith(suffix)) out.push(relative(root, p));
    }
  };
  walk(join(root, dir));
  return out;
}

// The integration files that start Compose projects (HUD environments with runtime_config.compose, Harbor tasks
// with a docker-compose.yaml, and the checks of a task's own compose file). The integration layer runs them with
// the machine's Compose (v1 on a Debian 12 machine); this layer runs them again with Compose v2, which most users
// have, so both readings of a compose file and both CLIs' output are tested (docs/engine.md, "The Compose CLI").
const COMPOSE_TESTS = [
  'test/integration/harbor/composeProvider.test.ts',
  'test/integration/harbor/allowlist.test.ts',
  'test/integration/harbor/fixtures.test.ts',
  'test/integration/harbor/safety.test.ts',
  'test/integration/security/harborPids.test.ts',
];

// What the engine asks of Docker's API (containers, copies, networks, the rollout network's rules), run again on a
// newer engine swapped in for the machine's (scripts/with-newer-docker.sh): CI's machine has Debian 12's Docker 20.10,
// most users a newer one (docs/engine.md, "Docker engines"). Last, since the machine's engine is down meanwhile.
const NEWER_DOCKER_TESTS = [
  ...files('test/integration/docker', '.test.ts'),
  'test/integration/security/rolloutNetwork.docker.test.ts',
  'test/integration/harbor/composeProvider.test.ts',
];
/** Set (by .ci/run) to make a swap the machine refuses a failure instead of a layer not run. */
const newerDockerRequired = process.env.HUD_STUDIO_NEWER_DOCKER === 'required';

/**
 * The integration layer's environment with Compose v2 as `docker compose` (scripts/setup-compose-v2.sh), in a
 * config folder that keeps the user's contexts and credentials (composeV2Config.mjs), made in the layer's
 * scratch folder and gone with it.
 */
function composeV2Env(env) {
  const plugin = join(env.HUD_STUDIO_TOOLS ?? '/opt/hud-studio-tools', 'compose-v2', 'cli-plugins', 'docker-compose');
  // Without the plugin there, the machine's own `docker compose` must be v2: the tests check the major version.
  const config = existsSync(plugin)
    ? composeV2Config(plugin, join(env.TMPDIR, 'docker-config'), userDockerConfig(env))
    : undefined;
  return {
    ...env,
    ...(config ? { DOCKER_CONFIG: config } : {}),
    HUD_STUDIO_TEST_LAYER: 'integration',
    HUD_STUDIO_COMPOSE_MAJOR: '2',
  };
}

if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) timed('npm ci', () => must('npm', ['ci']));
if (!skipSetup) {
  if (needsDocker) timed('setup: Docker', () => must('bash', ['scripts/setup-docker.sh']));
  if (layers.includes('compose-v2')) timed('setup: Compose v2', () => must('bash', ['scripts/setup-compose-v2.sh']));
  if (needsBrowser) timed('setup: browser', () => must('bash', ['scripts/setup-browser.sh']));
  if (layers.includes('e2e')) timed('setup: code-server', () => must('bash', ['scripts/setup-code-server.sh']));
}
if (layers.some((l) => l !== 'lint')) timed('build', () => must('node', ['scripts/build.mjs']));

const tally = { passed: 0, failed: 0 };
let failed = false;
for (const layer of layers) timed(`${layer} tests`, () => withScratchTmp((env) => runLayer(layer, env)));

// Every layer gets a temporary folder of its own as TMPDIR, removed when the layer ends: a test that
// fails, is cancelled or simply forgets its cleanup leaves nothing behind in the machine's /tmp (runs
// on a developer's machine had left some 1,700 folders there).
function withScratchTmp(fn) {
  const dir = mkdtempSync(join(tmpdir(), 'hud-studio-tests-'));
  // /tmp's own mode: tests run some processes as another user (the sandbox's agent, a CLI under setpriv),
  // and those write their temporary files here too.
  chmodSync(dir, 0o1777);
  try {
    return fn({ ...process.env, TMPDIR: dir });
  } finally {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      console.error(`[test] could not remove the tests' temporary folder ${dir}: ${e.message}`);
    }
  }
}

function runLayer(layer, env) {
  console.log(`\n=== ${layer} tests ===`);
  if (layer === 'lint') {
    // The type check of every layer's tsconfig (the boundaries), then ESLint and Prettier: counted as one test.
    const clean =
      run('npm', ['run', '--silent', 'typecheck'], { env }) === 0 &&
      run(process.execPath, ['scripts/lint.mjs'], { env }) === 0;
    tally[clean ? 'passed' : 'failed'] += 1;
    if (!clean) failed = true;
    return;
  }
  if (layer === 'python') {
    const r = spawnSync('python3', ['-m', 'unittest', 'discover', '-s', 'test/python', '-t', '.', '-p', 'test_*.py'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...env, PYTHONPATH: join(root, 'runtime', 'python'), PYTHONDONTWRITEBYTECODE: '1' },
    });
    process.stdout.write(r.stdout);
    process.stderr.write(r.stderr);
    const ran = Number(/Ran (\d+) test/.exec(r.stderr)?.[1] ?? 0);
    const bad = /FAILED \((?:failures=(\d+))?(?:, )?(?:errors=(\d+))?/.exec(r.stderr);
    const nBad = bad ? Number(bad[1] ?? 0) + Number(bad[2] ?? 0) : 0;
    tally.passed += ran - nBad;
    tally.failed += nBad;
    if (r.status !== 0 || ran === 0) failed = true;
    return;
  }
  // The conformance suite against the real HUD SDK runs with the integration tests (it needs Docker too).
  const list =
    layer === 'compose-v2'
      ? COMPOSE_TESTS
      : layer === 'newer-docker'
        ? NEWER_DOCKER_TESTS
        : [
            ...files(`test/${layer}`, '.test.ts'),
            ...(layer === 'integration' ? files('test/conformance', '.test.ts') : []),
          ];
  if (list.length === 0) {
    console.error(`no ${layer} tests found`);
    failed = true;
    return;
  }
  const nodeTest = [
    process.execPath,
    '--import',
    'tsx',
    '--test',
    '--test-reporter=spec',
    `--test-concurrency=${layer === 'unit' ? 2 : 1}`,
    ...list,
  ];
  const [cmd, ...argv] = layer === 'newer-docker' ? ['bash', 'scripts/with-newer-docker.sh', ...nodeTest] : nodeTest;
  const r = spawnSync(cmd, argv, {
    cwd: root,
    encoding: 'utf8',
    env: layer === 'compose-v2' ? composeV2Env(env) : { ...env, HUD_STUDIO_TEST_LAYER: layer },
    maxBuffer: 512 * 1024 * 1024,
  });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  // 75: the machine's engine could not be swapped; the script said why.
  if (layer === 'newer-docker' && r.status === 75) {
    if (!newerDockerRequired) {
      console.log('[test] newer-docker: not run on this machine (the reason is above); CI requires it');
      return;
    }
    console.error('[test] newer-docker: not run, and HUD_STUDIO_NEWER_DOCKER=required (CI) makes that a failure');
    tally.failed += 1;
  }
  const pass = Number(/^ℹ pass (\d+)/m.exec(r.stdout)?.[1] ?? 0);
  const fail = Number(/^ℹ fail (\d+)/m.exec(r.stdout)?.[1] ?? 0);
  const cancelled = Number(/^ℹ cancelled (\d+)/m.exec(r.stdout)?.[1] ?? 0);
  tally.passed += pass;
  tally.failed += fail + cancelled;
  if (r.status !== 0 || pass === 0) failed = true;
}

console.log(`\n${timings.map(([label, sec]) => `${label} ${sec.toFixed(0)} s`).join(', ')}`);
console.log(`\n${tally.passed} passed, ${tally.failed} failed`);
process.exit(failed || tally.failed > 0 ? 1 : 0);
