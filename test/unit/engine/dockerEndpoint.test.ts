import { test } from 'node:test';
import assert from 'node:assert/strict';
import Docker from 'dockerode';
import {
  defaultDockerHost,
  dockerClient,
  dockerHost,
  dockerodeOptions,
  withDockerEndpoint,
} from '../../../client/src/engine/docker/client';

type Modem = { socketPath?: unknown; host?: unknown; port?: unknown; protocol?: unknown };
const modemOf = (d: Docker): Modem => (d as unknown as { modem: Modem }).modem;

test('an explicit unix endpoint wins over an inherited tcp DOCKER_HOST (every option is spelled out)', () => {
  const saved = process.env['DOCKER_HOST'];
  // Only this test's own process: dockerode falls back to DOCKER_HOST for any option left unset.
  process.env['DOCKER_HOST'] = 'tcp://192.0.2.1:2375';
  try {
    const modem = modemOf(new Docker(dockerodeOptions('unix:///run/other.sock', {})));
    assert.equal(modem.socketPath, '/run/other.sock');
    assert.equal(modem.host, undefined);
  } finally {
    if (saved === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = saved;
  }
});

test('tcp, TLS and ssh endpoints', () => {
  assert.deepEqual(
    { ...dockerodeOptions('tcp://127.0.0.1:2375', {}) },
    { protocol: 'http', host: '127.0.0.1', port: '2375', socketPath: undefined },
  );
  assert.equal(dockerodeOptions('tcp://10.0.0.1:2376', {}).protocol, 'https');
  assert.equal(dockerodeOptions('tcp://10.0.0.1:2375', { DOCKER_TLS_VERIFY: '1' }).protocol, 'https');
  const ssh = dockerodeOptions('ssh://me@build-box', { SSH_AUTH_SOCK: '/tmp/agent' });
  assert.equal(ssh.protocol, 'ssh');
  assert.equal(ssh.username, 'me');
  assert.equal(ssh.host, 'build-box');
});

test('a run binds its endpoint for everything under it; concurrent runs keep their own', async () => {
  assert.equal(defaultDockerHost({}), 'unix:///var/run/docker.sock');
  assert.equal(defaultDockerHost({ DOCKER_HOST: ' tcp://h:1 ' }), 'tcp://h:1');
  const seen = await Promise.all(
    ['unix:///run/a.sock', 'tcp://127.0.0.1:2999'].map((host) =>
      withDockerEndpoint(host, async () => {
        await new Promise((r) => setImmediate(r));
        return { host: dockerHost(), socket: modemOf(dockerClient()).socketPath ?? modemOf(dockerClient()).host };
      }),
    ),
  );
  assert.deepEqual(seen, [
    { host: 'unix:///run/a.sock', socket: '/run/a.sock' },
    { host: 'tcp://127.0.0.1:2999', socket: '127.0.0.1' },
  ]);
});
