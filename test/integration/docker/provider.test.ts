import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { CONTAINER_PIDS_LIMIT } from '../../../client/src/engine/docker/pidsLimit';
import { ROLLOUT_NETWORK } from '../../../client/src/engine/docker/rolloutNetwork';
import { DockerProvider, DockerSubstrate } from '../../../client/src/engine/providers/docker';
import type { AcquireOptions, EnvironmentSpec, Substrate } from '../../../client/src/engine/providers/provider';
import type { LogStream } from '../../../common/trace/schema';
import { rpc } from './jsonLines';
import { DOCKER_FIXTURES, assertNoContainersOfRollout, containerExists, dockerReady } from './support';

function specOf(folder: string, extra: Partial<EnvironmentSpec> = {}): EnvironmentSpec {
  const envDir = join(DOCKER_FIXTURES, folder);
  return { envFile: join(envDir, 'env.py'), envDir, runtimeConfig: null, ...extra };
}

function acquireOpts(
  extra: Partial<AcquireOptions> = {},
): AcquireOptions & { logs: { stream: LogStream; text: string }[] } {
  const logs: { stream: LogStream; text: string }[] = [];
  return {
    rolloutId: `test-${randomUUID()}`,
    phase: 'actor',
    log: (stream, text) => logs.push({ stream, text }),
    startupTimeoutMs: 120_000,
    logs,
    ...extra,
  };
}

async function released(s: Substrate, rolloutId: string): Promise<void> {
  await s.release();
  await s.release();
  assert.equal(await containerExists(s.info.id), false, 'the container is gone after release');
  await assertNoContainersOfRollout(rolloutId);
}

describe('Docker provider', () => {
  const provider = new DockerProvider();
  before(dockerReady);

  test('builds the Dockerfile beside env.py, copies runtime and folder, serves with credentials only in the server', async () => {
    const opts = acquireOpts();
    const s = await provider.acquire(specOf('dockerfile_env'), opts);
    try {
      assert.ok(s instanceof DockerSubstrate);
      assert.equal(s.info.provider, 'docker');
      assert.equal(s.info.isolation, 'container');
      assert.match(s.info.image ?? '', /^hud-studio-env:[0-9a-f]{16}$/);
      assert.match(s.info.imageId ?? '', /^sha256:/);
      assert.equal(s.info.network, ROLLOUT_NETWORK);
      assert.equal(s.envPath, '/opt/hud-studio/env/env.py');
      assert.equal(s.workdir, '/opt/hud-studio/env');
      const where = await s.execPython(['-c', 'import hud, hud_studio; print(hud.__file__)']);
      assert.equal(where.stdout.trim(), '/opt/hud-studio/runtime/hud/__init__.py', where.stderr);

      const serverLogs: string[] = [];
      await s.serve({
        envName: 'probe',
        env: { SERVER_ONLY_SECRET: 'sekrit' },
        log: (stream, text) => stream === 'server' && serverLogs.push(text),
      });
      const ch = rpc(await s.openChannel());
      const hello = await ch.call('hello');
      assert.equal((hello['result'] as { env: { name: string } }).env.name, 'probe');
      await ch.call('tasks.start', { id: 'probe', args: {} });
      const grade = (await ch.call('tasks.grade', { answer: 'done' }))['result'] as { info: Record<string, unknown> };
      assert.deepEqual(grade.info, {
        marker: 'built from the fixture Dockerfile',
        server_secret: 'sekrit',
        cwd: '/opt/hud-studio/env',
      });
      ch.close();
      assert.ok(
        serverLogs.some((l) => /serving environment 'probe'/.test(l)),
        serverLogs.join('\n'),
      );
      const other = await s.exec(['sh', '-c', 'echo "[$SERVER_ONLY_SECRET]"']);
      assert.equal(other.stdout, '[]\n', "other execs in the container do not get the server's credentials");
    } finally {
      await released(s, opts.rolloutId);
    }
  });

  test('runtime_config network none and resources apply, and the relayed channel still works', async () => {
    const opts = acquireOpts();
    const s = await provider.acquire(
      specOf('offline_env', { runtimeConfig: { network_mode: 'no-network', resources: { cpu: 0.5, memory_mb: 300 } } }),
      opts,
    );
    try {
      assert.equal(s.info.network, 'none');
      const inspect = await dockerClient().getContainer(s.info.id).inspect();
      assert.equal(inspect.HostConfig.NetworkMode, 'none');
      assert.equal(inspect.HostConfig.NanoCpus, 500_000_000);
      assert.equal(inspect.HostConfig.Memory, 300 * 1024 * 1024);
      assert.equal(inspect.HostConfig.PidsLimit, CONTAINER_PIDS_LIMIT, 'docs/security.md, "Exhaustion"');
      await s.serve({ envName: 'offline', log: () => undefined });
      const ch = rpc(await s.openChannel());
      await ch.call('hello');
      await ch.call('tasks.start', { id: 'interfaces', args: {} });
      const grade = (await ch.call('tasks.grade', { answer: '' }))['result'] as { info: { interfaces: string[] } };
      assert.deepEqual(grade.info.interfaces, ['lo'], 'the server runs with no network, reached through its loopback');
      ch.close();
    } finally {
      await released(s, opts.rolloutId);
    }
  });

  test('a server that dies while starting is reported with its last lines', async () => {
    const opts = acquireOpts();
    const s = await provider.acquire(specOf('broken_server'), opts);
    try {
      await assert.rejects(
        s.serve({ envName: 'broken', log: () => undefined }),
        /broken server exited with code \d+ before it was ready:[\s\S]*this environment cannot be imported/,
      );
    } finally {
      await released(s, opts.rolloutId);
    }
  });

  test("with the image's own SDK required, an image without one is refused before anything runs", async () => {
    const opts = acquireOpts();
    await assert.rejects(
      provider.acquire(specOf('offline_env', { sdk: 'image' }), opts),
      /has no HUD SDK v6 that can serve/,
    );
    await assertNoContainersOfRollout(opts.rolloutId);
  });

  test('compose runtime_config is refused with a typed error before any container exists', async () => {
    const opts = acquireOpts();
    await assert.rejects(
      provider.acquire(specOf('offline_env', { runtimeConfig: { compose: { services: {} } } }), opts),
      (err: Error & { code?: string }) => {
        assert.equal(err.code, 'provider');
        assert.match(err.message, /compose runtime_config is handled by ComposeProvider/);
        return true;
      },
    );
    await assertNoContainersOfRollout(opts.rolloutId);
  });

  test('an image that is neither present nor pullable fails clearly and leaves nothing', async () => {
    const opts = acquireOpts();
    await assert.rejects(
      provider.acquire(specOf('offline_env', { image: 'hud-studio-test/absent:1' }), opts),
      /image hud-studio-test\/absent:1 is not available/,
    );
    await assertNoContainersOfRollout(opts.rolloutId);
  });

  test('cancelling while the container is being set up removes it', async () => {
    const ctl = new AbortController();
    const opts = acquireOpts({ signal: ctl.signal });
    const pending = provider.acquire(specOf('offline_env'), opts);
    setTimeout(() => ctl.abort(), 150);
    await assert.rejects(pending, /cancelled/);
    await assertNoContainersOfRollout(opts.rolloutId);
  });
});
