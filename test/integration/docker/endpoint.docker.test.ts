/**
 * The Docker endpoint travels with the run request (the editor's
 * hudStudio.dockerHost): the engine uses it for dockerode and Compose and
 * never reads or writes it through process.env.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname } from 'node:path';
import { defaultDockerHost } from '../../../client/src/engine/docker/client';
import { HudStudioError } from '../../../client/src/engine/errors';
import type { TaskRunRequest } from '../../../client/src/engine/runRequest';
import { runTask } from '../../../client/src/engine/runTask';
import { FIXTURES } from '../engine-local/rules';
import { dockerReady, tempDir } from './support';

before(dockerReady);

const NOBODY = 'tcp://127.0.0.1:9';

function request(dockerHost: string): TaskRunRequest {
  return {
    ref: `${FIXTURES.sameEnv}::task`,
    cwd: dirname(FIXTURES.sameEnv),
    runtime: 'docker',
    dockerHost,
    agent: { choice: { answer: 'secret' } },
    consent: { serviceAccess: false, sharedSecrets: false },
    traceDir: tempDir('endpoint'),
  };
}

test('the request names the daemon: an inherited DOCKER_HOST pointing nowhere neither wins nor changes', async () => {
  const real = defaultDockerHost();
  const saved = process.env['DOCKER_HOST'];
  // Only this test process's own variable, to prove the engine does not read it when told where to go.
  process.env['DOCKER_HOST'] = NOBODY;
  try {
    const done = await runTask(request(real));
    assert.equal(done.status, 'completed', done.error?.message);
    assert.equal(done.reward, 1);
    assert.equal(done.trace.provider.dockerHost, real);
    assert.equal(process.env['DOCKER_HOST'], NOBODY, 'the run left the environment as it found it');
  } finally {
    if (saved === undefined) delete process.env['DOCKER_HOST'];
    else process.env['DOCKER_HOST'] = saved;
  }
});

test('a request naming a daemon that does not answer fails with that address and a typed fix', async () => {
  const before = process.env['DOCKER_HOST'];
  await assert.rejects(runTask(request(NOBODY)), (err: unknown) => {
    assert.ok(err instanceof HudStudioError);
    assert.equal(err.code, 'docker-unavailable');
    assert.match(err.message, /127\.0\.0\.1:9/);
    assert.deepEqual(err.fix, { kind: 'runtime', use: 'local' });
    return true;
  });
  assert.equal(process.env['DOCKER_HOST'], before);
});
