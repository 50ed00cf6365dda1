/**
 * The turn-end check of a Harbor image without python3, run from a container beside the task's
 * (client/src/engine/harbor/checkBeside.ts), on the real Docker engine: what it needs of the task container, and
 * what it says when it cannot check. The attacks it stops are in attacks.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createContainer } from '../../../client/src/engine/docker/container';
import type { ManagedContainer } from '../../../client/src/engine/docker/types';
import { checkHarborAgentTurnEnd } from '../../../client/src/engine/harbor/agentTurnEnd';
import { BASE_IMAGE, dockerReady } from '../docker/support';
import { assertNothingLeft } from './support';

const rolloutId = `test-${randomUUID()}`;
const started: ManagedContainer[] = [];

before(dockerReady);
after(async () => {
  await Promise.all(started.map((c) => c.remove()));
  await assertNothingLeft(rolloutId);
});

/** A container of the base image without python3, with an agent user that left a link to root's secret. */
async function taskContainer(processesOf?: string): Promise<ManagedContainer> {
  const c = await createContainer({
    image: BASE_IMAGE,
    rolloutId,
    phase: 'actor',
    network: 'none',
    ...(processesOf ? { processesOf } : {}),
  });
  started.push(c);
  const setup = await c.exec(
    [
      'sh',
      '-c',
      [
        'rm -f /usr/bin/python3* /usr/local/bin/python3*',
        'useradd -m agent && groupadd crew && usermod -aG crew agent',
        'mkdir -p /app /tests && echo s3cret > /tests/expected.txt && chmod 600 /tests/expected.txt && chown agent /app',
        "su agent -c 'ln -s /tests/expected.txt /app/answer.txt && touch /app/json.py'",
      ].join(' && '),
    ],
    { user: 'root' },
  );
  assert.equal(setup.exitCode, 0, setup.stderr);
  return c;
}

test("without python3, the agent's walk runs beside the container as its user and groups", async () => {
  const task = await taskContainer();
  const checked = await checkHarborAgentTurnEnd(task, 'agent', '/app', rolloutId);
  assert.ok('check' in checked, JSON.stringify(checked));
  const { check } = checked;
  assert.deepEqual(check.cut, [{ path: '/app/answer.txt', target: '/tests/expected.txt' }]);
  // The identity the task container gave the agent's exec: its uid, and its own and crew's groups.
  const ids = await task.exec(['sh', '-c', 'echo "$(id -u):$(id -G | tr " " "\\n" | sort -n | paste -sd, -)"'], {
    user: 'agent',
  });
  assert.equal(check.agent, ids.stdout.trim());
  // A module of the agent's under a standard-library name, where the tests run.
  assert.deepEqual(check.shadowing, [{ path: '/app/json.py', module: 'json' }]);
  assert.equal((await task.exec(['test', '-L', '/app/answer.txt'])).exitCode, 1, 'the link is gone');
});

test("a task container that shares another's processes is not checked, and says why", async () => {
  const other = await createContainer({ image: BASE_IMAGE, rolloutId, phase: 'actor', network: 'none' });
  started.push(other);
  const task = await taskContainer(other.id);
  const checked = await checkHarborAgentTurnEnd(task, 'agent', '/app', rolloutId);
  assert.ok('unchecked' in checked, JSON.stringify(checked));
  assert.match(
    checked.unchecked,
    /^the image has no python3, and the task container shares the processes of container:/,
  );
  // Nothing was changed in its file system.
  assert.equal((await task.exec(['test', '-L', '/app/answer.txt'])).exitCode, 0);
});
