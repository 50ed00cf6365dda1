/**
 * Image SDK first (docs/sdk-compatibility.md): a Docker image that really
 * contains the HUD SDK serves with it, and the trace says so; the same run
 * on the bundled runtime gives the same result; `--sdk image` on an image
 * without the SDK fails clearly.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { FixedAgent } from '../../client/src/engine/agents/fixed';
import { DockerProvider } from '../../client/src/engine/providers/docker';
import { LocalProvider } from '../../client/src/engine/providers/local';
import type { SdkChoice } from '../../client/src/engine/providers/servingSdk';
import { runRollout } from '../../client/src/engine/rollout';
import { peerPythonPath, REPO_ROOT } from './peer';
import { peerSdkImage } from './peerImage';

const EXAMPLE = join(REPO_ROOT, 'examples', 'secret-verifier', 'env.py');

function rollout(image: string, sdk: SdkChoice, answer: string): ReturnType<typeof runRollout> {
  return runRollout({
    ref: `${EXAMPLE}::task`,
    cwd: REPO_ROOT,
    provider: new DockerProvider({ stopGraceMs: 2_000 }),
    agent: new FixedAgent(answer),
    traceDir: null,
    image,
    sdk,
    timeouts: { rolloutMs: 240_000 },
  });
}

describe("the image's own HUD SDK serves first", () => {
  let image: string;
  before(() => {
    image = peerSdkImage();
  });

  test('an image with the real SDK is served by it (auto), the trace says so, and the result matches the bundled runtime', async () => {
    for (const answer of ['marigold', 'wrong']) {
      const served = await rollout(image, 'auto', answer);
      assert.equal(served.status, 'completed', served.error?.message);
      for (const phase of served.trace.phases) {
        assert.deepEqual(
          phase.substrate?.sdk,
          { name: 'hud-python', version: '0.6.16.dev2', source: 'image' },
          phase.name,
        );
      }
      // The server really was the SDK's: its own log line, not the bundled runtime's.
      const serverLogs = served.trace.phases
        .flatMap((p) => p.logs.filter((l) => l.stream === 'server').map((l) => l.text))
        .join('\n');
      assert.doesNotMatch(serverLogs, /\[hud-server\] serving environment/);

      const bundled = await rollout(image, 'bundled', answer);
      assert.equal(bundled.trace.phases[0]?.substrate?.sdk?.source, 'bundled');
      assert.deepEqual(
        [served.status, served.reward, served.result?.subscores, served.trace.task.slug],
        [bundled.status, bundled.reward, bundled.result?.subscores, bundled.trace.task.slug],
      );
    }
  });

  test('--sdk image on an image without the SDK fails before serving, naming the fix', async () => {
    const outcome = await rollout('hud-studio/base:bookworm', 'image', 'marigold');
    assert.equal(outcome.status, 'error');
    assert.equal(outcome.error?.phase, 'actor');
    assert.match(outcome.error?.message ?? '', /has no HUD SDK v6 that can serve.*--sdk bundled/s);
  });

  test('auto on an image without the SDK is served by the bundled runtime', async () => {
    const outcome = await rollout('hud-studio/base:bookworm', 'auto', 'marigold');
    assert.equal(outcome.status, 'completed', outcome.error?.message);
    assert.equal(outcome.reward, 1);
    assert.equal(outcome.trace.phases[0]?.substrate?.sdk?.source, 'bundled');
  });
});

describe("the local runtime's own python with the HUD SDK serves first", () => {
  test('a python3 on PATH that has the real SDK serves the run; the trace says so; same result as bundled', async () => {
    // A python3 whose site has the peer SDK: what a virtualenv with hud-python installed looks like to HUD Studio.
    const bin = mkdtempSync(join(tmpdir(), 'hs-local-sdk-'));
    try {
      const real = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
      writeFileSync(
        join(bin, 'python3'),
        [
          '#!/bin/sh',
          // The peer's shim finds its Debian packages under HOME by default; the scrubbed HOME is elsewhere.
          `export HUD_SDK_PEER_CACHE=${process.env['HUD_SDK_PEER_CACHE'] ?? join(homedir(), '.cache', 'hud-sdk-peer')}`,
          `export PYTHONPATH="\${PYTHONPATH:+$PYTHONPATH:}${peerPythonPath()}"`,
          `exec ${real} "$@"`,
          '',
        ].join('\n'),
      );
      chmodSync(join(bin, 'python3'), 0o755);
      const parentEnv = { ...process.env, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin` };
      const local = (sdk: SdkChoice): ReturnType<typeof runRollout> =>
        runRollout({
          ref: `${EXAMPLE}::task`,
          cwd: REPO_ROOT,
          provider: new LocalProvider({ parentEnv }),
          agent: new FixedAgent('marigold'),
          traceDir: null,
          sdk,
          timeouts: { rolloutMs: 120_000 },
        });
      const served = await local('auto');
      assert.equal(served.status, 'completed', served.error?.message);
      assert.equal(served.reward, 1);
      for (const phase of served.trace.phases) {
        assert.deepEqual(
          phase.substrate?.sdk,
          { name: 'hud-python', version: '0.6.16.dev2', source: 'image' },
          phase.name,
        );
      }
      const bundled = await local('bundled');
      assert.equal(bundled.trace.phases[0]?.substrate?.sdk?.source, 'bundled');
      assert.deepEqual(
        [served.reward, served.result?.subscores, served.trace.task.slug],
        [bundled.reward, bundled.result?.subscores, bundled.trace.task.slug],
      );
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
