/**
 * The bundled server's interpreter as the container's own process
 * (docs/engine.md): created with the container, attached before start, so
 * that a rollout's only exec is the channel's relay.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { LABELS } from '../../../client/src/engine/docker/types';
import { DockerProvider } from '../../../client/src/engine/providers/docker';
import type { EnvironmentSpec } from '../../../client/src/engine/providers/provider';
import { rpc } from './jsonLines';
import {
  BASE_IMAGE,
  DOCKER_FIXTURES,
  acquireActor,
  assertNoContainersOfRollout,
  dockerReady,
  imageFrom,
  tempDir,
  type AcquiredActor,
} from './support';

/** The actions of one rollout's container events (`exec_create`, `extract-to-dir`, ...) between `since` and now. */
async function actionsOf(rolloutId: string, since: number): Promise<string[]> {
  const stream = await dockerClient().getEvents({
    since,
    until: Math.ceil(Date.now() / 1000) + 1,
    filters: { type: ['container'], label: [`${LABELS.rollout}=${rolloutId}`] },
  });
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { Action: string }).Action);
}

describe("Docker provider: the bundled server's interpreter as the container's own process", () => {
  let envDir = '';
  let entrypointImage = '';

  before(async () => {
    await dockerReady();
    envDir = tempDir('own-');
    writeFileSync(
      join(envDir, 'env.py'),
      [
        'import atexit, sys',
        'atexit.register(lambda: print("exit handler ran", file=sys.stderr, flush=True))',
        'from hud import Environment',
        'env = Environment("own")',
        '@env.shutdown',
        'async def bye():',
        '    print("teardown ran", flush=True)',
        '',
      ].join('\n'),
    );
    // An entrypoint that runs its command, as most do: the container's command is handed to it.
    entrypointImage = await imageFrom(`FROM ${BASE_IMAGE}\nENTRYPOINT ["/usr/bin/env"]\n`);
  });
  after(() => rmSync(envDir, { recursive: true, force: true }));

  const acquire = (provider: DockerProvider, extra: Partial<EnvironmentSpec> = {}): Promise<AcquiredActor> =>
    acquireActor(provider, envDir, extra);

  test('no exec per rollout, no putArchive, no Docker log; the end of stdin stops the server and the container', async () => {
    const provider = new DockerProvider();
    // The image's SDK probe (one exec, once per image per process) is behind us.
    const first = await acquire(provider);
    await first.s.release();
    const { s, rolloutId, since } = await acquire(provider);
    try {
      assert.equal(s.container.hasOwnProcess, true);
      const info = await s.container.handle.inspect();
      assert.deepEqual(info.Config.Cmd?.slice(0, 3), ['python3', '-u', '-c']);
      assert.equal(info.HostConfig.Init, true, 'PID 1 is docker-init, which reaps orphans');
      assert.equal(info.HostConfig.LogConfig?.Type, 'none', "the server's output reaches the engine only");
      assert.ok(!info.Config.Env?.some((e) => e.startsWith('PYTHONPATH=')), 'no variable of ours for every exec');

      const found = await s.execPython(['-m', 'hud_studio.discover', s.envPath, '--json']);
      assert.equal(found.exitCode, 0, found.stderr);
      const serverLogs: string[] = [];
      await s.serve({ envName: 'own', log: (stream, text) => stream === 'server' && serverLogs.push(text) });
      const ch = rpc(await s.openChannel());
      assert.equal(((await ch.call('hello'))['result'] as { env: { name: string } }).env.name, 'own');
      ch.close();
      const execs = (await actionsOf(rolloutId, since)).filter((a) => a.startsWith('exec_create'));
      assert.deepEqual(execs, [], "no exec: discovery forked, the channel on the server's own stdio");

      const agentView = await s.exec(['sh', '-c', 'echo "${PYTHONPATH-unset}"']);
      assert.equal(agentView.stdout.trim(), 'unset', "an exec does not inherit the server's variables");

      await s.stopServer();
      assert.ok(
        serverLogs.some((l) => /teardown ran/.test(l)),
        `the server ran its teardown:\n${serverLogs.join('\n')}`,
      );
      assert.ok(
        serverLogs.some((l) => /exit handler ran/.test(l)),
        `what the environment's exit handlers print comes before the end line and is logged:\n${serverLogs.join('\n')}`,
      );
      assert.ok(!serverLogs.some((l) => l.includes('HUD_STUDIO_SERVER_ENDED')), 'the end line is not logged');
      const deadline = Date.now() + 10_000;
      let state = (await s.container.handle.inspect()).State;
      while (state.Running && Date.now() < deadline) state = (await s.container.handle.inspect()).State;
      assert.equal(state.Running, false, 'the container ends with its process');
      assert.equal(state.ExitCode, 0);
    } finally {
      await s.release();
      await assertNoContainersOfRollout(rolloutId);
    }
    const actions = await actionsOf(rolloutId, since);
    assert.ok(!actions.includes('extract-to-dir'), `no putArchive: ${actions.join(', ')}`);
  });

  test('an image with an ENTRYPOINT keeps it: a keep-alive command, and the interpreter by exec', async () => {
    const { s, rolloutId } = await acquire(new DockerProvider(), { image: entrypointImage });
    try {
      assert.equal(s.container.hasOwnProcess, false);
      const info = await s.container.handle.inspect();
      assert.deepEqual(info.Config.Entrypoint, ['/usr/bin/env']);
      assert.deepEqual(info.Config.Cmd, ['sleep', 'infinity']);
      await s.serve({ envName: 'own', log: () => undefined });
      const ch = rpc(await s.openChannel());
      assert.equal(((await ch.call('hello'))['result'] as { env: { name: string } }).env.name, 'own');
      ch.close();
    } finally {
      await s.release();
      await assertNoContainersOfRollout(rolloutId);
    }
  });

  test('a server that dies while starting: the same report as when it runs by exec', async () => {
    const spec: Partial<EnvironmentSpec> = {
      envFile: join(DOCKER_FIXTURES, 'broken_server', 'env.py'),
      envDir: join(DOCKER_FIXTURES, 'broken_server'),
      image: BASE_IMAGE,
    };
    const reports: string[] = [];
    for (const provider of [new DockerProvider(), new DockerProvider({ prestartServer: false })]) {
      const { s, rolloutId } = await acquire(provider, spec);
      try {
        await assert.rejects(s.serve({ envName: 'broken', log: () => undefined }), (err: unknown) => {
          reports.push(err instanceof Error ? err.message : String(err));
          return true;
        });
      } finally {
        await s.release();
        await assertNoContainersOfRollout(rolloutId);
      }
    }
    assert.match(reports[0] ?? '', /broken server exited with code 1 before it was ready:[\s\S]*cannot be imported/);
    assert.equal(reports[0], reports[1]);
  });
});
