/** Borrowed servers (`tcp://host:port`): the engine attaches, never starts or stops them, and the trace says so. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { CommandAgent } from '../../../client/src/engine/agents/command';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { ControlChannel } from '../../../client/src/engine/channel/client';
import { connectTcp } from '../../../client/src/engine/channel/tcp';
import { UrlProvider } from '../../../client/src/engine/providers/url';
import { runtimePythonDir } from '../../../client/src/engine/runtimePaths';
import { FIXTURES, rolloutOn, scratchDir, type ProviderUnderTest } from './rules';

/** Serves `envName` of a copy of the fixture folder with the bundled runtime, as a user's `hud serve` would. */
async function startServer(envFile: string, envName: string): Promise<{ child: ChildProcess; port: number }> {
  const dir = scratchDir('hs-borrowed-');
  cpSync(dirname(envFile), dir, { recursive: true });
  const child = spawn(
    'python3',
    ['-m', 'hud.environment.server', join(dir, 'env.py'), '--env', envName, '--port', '0'],
    {
      cwd: dir,
      env: { ...process.env, PYTHONPATH: runtimePythonDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const m = /^HUD_SERVE_PORT=(\d+)$/.exec(l);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  return { child, port };
}

describe('borrowed server (tcp://)', () => {
  const logs: string[] = [];
  let same: { child: ChildProcess; port: number };
  let workspace: { child: ChildProcess; port: number };
  before(async () => {
    same = await startServer(FIXTURES.sameEnv, 'workspace');
    createInterface({ input: same.child.stderr! }).on('line', (l) => logs.push(l));
    workspace = await startServer(FIXTURES.twoEnv, 'workspace');
    workspace.child.stderr!.resume();
  });
  after(() => {
    same.child.kill('SIGTERM');
    workspace.child.kill('SIGTERM');
  });
  const borrowed = (port: number): ProviderUnderTest => ({
    name: 'url',
    create: () => new UrlProvider(`tcp://127.0.0.1:${port}`),
    assertReleased: async () => undefined,
  });

  test('runs both phases on the live server and records that the substrate was borrowed', async () => {
    const { outcome } = await rolloutOn(borrowed(same.port), FIXTURES.sameEnv, new FixedAgent('secret'));
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
    assert.equal(outcome.reward, 1);
    assert.equal(outcome.trace.provider.kind, 'url');
    assert.equal(outcome.trace.provider.verifierSubstrate, 'borrowed');
    assert.ok(
      outcome.trace.phases.every(
        (p) => p.substrate?.isolation === 'borrowed' && p.substrate.address === `tcp://127.0.0.1:${same.port}`,
      ),
    );
    assert.ok(outcome.trace.warnings.some((w) => /borrowed .* same live server/.test(w)));
    // The server is still there for its owner.
    const ch = new ControlChannel(await connectTcp('127.0.0.1', same.port));
    assert.equal((await ch.hello()).env.name, 'workspace');
    await ch.bye();
    assert.equal(same.child.exitCode, null);
  });

  test('a verifier in another environment than the borrowed server serves is a clear verifier error', async () => {
    const { outcome } = await rolloutOn(borrowed(workspace.port), `${FIXTURES.twoEnv}::task`, new FixedAgent('secret'));
    assert.equal(outcome.status, 'error');
    assert.equal(outcome.error?.phase, 'verifier');
    assert.match(outcome.error.message, /serves environment "workspace", but the task needs "judge"/);
    assert.equal(outcome.reward, null);
  });

  test('commands cannot run on a borrowed server: a typed agent error', async () => {
    const before = logs.length;
    const { outcome } = await rolloutOn(borrowed(same.port), FIXTURES.sameEnv, new CommandAgent('echo secret'));
    assert.equal(outcome.status, 'error');
    assert.equal(outcome.error?.phase, 'actor');
    assert.match(
      outcome.error.message,
      /running a command is not possible on the borrowed server tcp:\/\/127.0.0.1:\d+/,
    );
    // The started task was withdrawn (the server logs the cancel), not left parked on somebody else's server.
    const ours = () => logs.slice(before).join('\n');
    const end = Date.now() + 20_000;
    while (!/cancelled /.test(ours()) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    assert.match(ours(), /cancelled /, 'the server logged the withdrawal');
    assert.ok(!ours().includes('parked session'), ours());
  });

  test('nothing listening: a provider error naming the address', async () => {
    const { outcome } = await rolloutOn(borrowed(1), FIXTURES.sameEnv, new FixedAgent('secret'));
    assert.equal(outcome.status, 'error');
    assert.match(outcome.error!.message, /cannot connect to tcp:\/\/127.0.0.1:1/);
  });
});
