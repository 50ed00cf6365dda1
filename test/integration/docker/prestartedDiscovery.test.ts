import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cpSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { discoverTasks } from '../../../client/src/engine/discover';
import { HudStudioError } from '../../../client/src/engine/errors';
import { DockerProvider, type DockerSubstrate } from '../../../client/src/engine/providers/docker';
import type { EnvironmentSpec } from '../../../client/src/engine/providers/provider';
import { rpc } from './jsonLines';
import { REPO_ROOT, assertNoContainersOfRollout, dockerReady, tempDir } from './support';

const PY_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'python');
// Forked children name the pre-started interpreter as their parent; a plain exec has no parent in the container.
const PARENT_PROBE =
  'import os, sys\nsys.stderr.write("PARENT:" + open("/proc/%d/cmdline" % os.getppid()).read().replace("\\0", " ") + "\\n")\n';
const PLAIN = ['python3', '-m', 'hud_studio.discover'];
const PLAIN_ENV = { PYTHONPATH: '/opt/hud-studio/runtime', PYTHONUNBUFFERED: '1' };

describe('Docker provider: discovery in a child of the pre-started interpreter', () => {
  const provider = new DockerProvider();
  let envDir = '';
  /** The same folder with a file that makes it too big for the copy through stdin. */
  let bigEnvDir = '';

  before(async () => {
    await dockerReady();
    envDir = tempDir('hs-prestart-');
    cpSync(join(PY_FIXTURES, 'discovery'), envDir, { recursive: true });
    copyFileSync(join(PY_FIXTURES, 'broken', 'raises_env.py'), join(envDir, 'raises_env.py'));
    writeFileSync(
      join(envDir, 'probe_env.py'),
      `${PARENT_PROBE}from hud import Environment\nenv = Environment("probe")\n`,
    );
    writeFileSync(join(envDir, 'slow_env.py'), 'import time\ntime.sleep(120)\n');
    bigEnvDir = tempDir('hs-prestart-big-');
    cpSync(envDir, bigEnvDir, { recursive: true });
    writeFileSync(join(bigEnvDir, 'data.bin'), Buffer.alloc(9 * 1024 * 1024, 1));
  });
  after(() => {
    rmSync(envDir, { recursive: true, force: true });
    rmSync(bigEnvDir, { recursive: true, force: true });
  });

  async function withSubstrate(body: (s: DockerSubstrate) => Promise<void>, dir = envDir): Promise<void> {
    const rolloutId = `test-${randomUUID()}`;
    const spec: EnvironmentSpec = { envFile: join(dir, 'env.py'), envDir: dir, runtimeConfig: null };
    const s = (await provider.acquire(spec, {
      rolloutId,
      phase: 'actor',
      log: () => undefined,
      startupTimeoutMs: 120_000,
    })) as DockerSubstrate;
    try {
      await body(s);
    } finally {
      await s.release();
      await assertNoContainersOfRollout(rolloutId);
    }
  }

  test('same report and exit as the plain command, from a forked child, and the server still starts there', async () => {
    await withSubstrate(async (s) => {
      const file = `${s.workdir}/env.py`;
      const forked = await s.execPython(['-m', 'hud_studio.discover', file, '--json']);
      const plain = await s.exec([...PLAIN, file, '--json'], { env: PLAIN_ENV });
      assert.equal(forked.exitCode, 0, forked.stderr);
      assert.equal(forked.exitCode, plain.exitCode);
      assert.deepEqual(JSON.parse(forked.stdout), JSON.parse(plain.stdout));
      assert.match(forked.stderr, /printed at import time/, 'user prints stay off the report, as in the plain command');

      const probe = await s.execPython(['-m', 'hud_studio.discover', `${s.workdir}/probe_env.py`, '--json']);
      assert.equal(probe.exitCode, 0, probe.stderr);
      assert.match(probe.stderr, /PARENT:python3 (-u )?-c [^]*hud_studio\.prestart/);

      const tasks = await discoverTasks(s, { displayPath: join(envDir, 'env.py'), hostDir: envDir, file });
      assert.ok(tasks.length > 0);

      const serverLogs: string[] = [];
      await s.serve({ envName: 'catalog', log: (stream, text) => stream === 'server' && serverLogs.push(text) });
      const ch = rpc(await s.openChannel());
      const hello = await ch.call('hello');
      assert.equal((hello['result'] as { env: { name: string } }).env.name, 'catalog');
      ch.close();
      assert.ok(!serverLogs.some((l) => l.includes('HUD_STUDIO_REPLY')), serverLogs.join('\n'));
    });
  });

  test("an error in user code: exit 1, the same error object, reported at the user's file and line", async () => {
    await withSubstrate(async (s) => {
      const file = `${s.workdir}/raises_env.py`;
      const forked = await s.execPython(['-m', 'hud_studio.discover', file, '--json']);
      const plain = await s.exec([...PLAIN, file, '--json'], { env: PLAIN_ENV });
      assert.equal(forked.exitCode, 1);
      assert.equal(plain.exitCode, 1);
      assert.deepEqual(JSON.parse(forked.stdout), JSON.parse(plain.stdout));
      await assert.rejects(
        discoverTasks(s, { displayPath: join(envDir, 'raises_env.py'), hostDir: envDir, file }),
        (err: unknown) => {
          assert.ok(err instanceof HudStudioError);
          assert.match(err.message, /configuration missing/);
          assert.equal(err.location?.file, join(envDir, 'raises_env.py'));
          assert.equal(typeof err.location?.line, 'number');
          return true;
        },
      );
    });
  });

  /** The pre-started interpreters in `s` and their forked children (which show the same command line). */
  async function interpreters(s: DockerSubstrate): Promise<number> {
    const r = await s.exec([
      'sh',
      '-c',
      'ps -ww -eo args | grep -c "^python3 \\(-u \\)\\?-c .*hud_studio[.]prestart" || true',
    ]);
    return Number(r.stdout.trim());
  }

  async function waitFor(what: string, ok: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await ok())) {
      assert.ok(Date.now() < deadline, `timed out waiting until ${what}`);
      await new Promise((r) => setImmediate(r));
    }
  }

  test("a timeout kills the child; the interpreter, the container's own process, stays and serves", async () => {
    await withSubstrate(async (s) => {
      assert.equal(s.container.hasOwnProcess, true);
      const slow = await s.execPython(['-m', 'hud_studio.discover', `${s.workdir}/slow_env.py`, '--json'], {
        timeoutMs: 1500,
      });
      assert.equal(slow.exitCode, null);
      assert.equal(slow.timedOut, true);
      await waitFor('only the interpreter is left', async () => (await interpreters(s)) === 1);
      const found = await s.execPython(['-m', 'hud_studio.discover', `${s.workdir}/env.py`, '--json']);
      assert.equal(found.exitCode, 0, found.stderr);
      const serverLogs: string[] = [];
      await s.serve({ envName: 'catalog', log: (stream, text) => stream === 'server' && serverLogs.push(text) });
      const ch = rpc(await s.openChannel());
      assert.equal(((await ch.call('hello'))['result'] as { env: { name: string } }).env.name, 'catalog');
      ch.close();
      assert.ok(!serverLogs.some((l) => l.includes('HUD_STUDIO_REPLY')), serverLogs.join('\n'));
    });
  });

  test('an interpreter started by exec (a folder over 8 MiB): a timeout kills it and its child; serve starts a fresh one', async () => {
    await withSubstrate(async (s) => {
      assert.equal(s.container.hasOwnProcess, false);
      const slow = await s.execPython(['-m', 'hud_studio.discover', `${s.workdir}/slow_env.py`, '--json'], {
        timeoutMs: 1500,
      });
      assert.equal(slow.exitCode, null);
      assert.equal(slow.timedOut, true);
      assert.equal(await interpreters(s), 0, 'the pre-started interpreter and its child are gone');
      await s.serve({ envName: 'catalog', log: () => undefined });
      const ch = rpc(await s.openChannel());
      assert.equal(((await ch.call('hello'))['result'] as { env: { name: string } }).env.name, 'catalog');
      ch.close();
    }, bigEnvDir);
  });

  test('a cancel stops a discovery in progress like the plain exec does', async () => {
    await withSubstrate(async (s) => {
      const ac = new AbortController();
      const pending = s.execPython(['-m', 'hud_studio.discover', `${s.workdir}/slow_env.py`, '--json'], {
        signal: ac.signal,
        timeoutMs: 60_000,
      });
      setTimeout(() => ac.abort(), 300);
      const r = await pending;
      assert.equal(r.exitCode, null);
      assert.equal(r.timedOut, false);
    });
  });
});
