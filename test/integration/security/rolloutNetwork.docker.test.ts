/**
 * Rollouts cannot reach each other (docs/security.md): an agent's container
 * with network access reaches the host and the outside world, but not the
 * services of another rollout running beside it, nor the user's own
 * containers on Docker's default bridge. Before, every rollout container sat
 * on that bridge, where each reaches every other one.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Docker from 'dockerode';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { createContainer } from '../../../client/src/engine/docker/container';
import { runExec } from '../../../client/src/engine/docker/exec';
import { ROLLOUT_NETWORK, rolloutNetwork } from '../../../client/src/engine/docker/rolloutNetwork';
import { HudStudioError } from '../../../client/src/engine/errors';
import type { ManagedContainer } from '../../../client/src/engine/docker/types';
import { BASE_IMAGE, dockerReady } from '../docker/support';

const SERVE = 'nohup python3 -m http.server 8000 --bind 0.0.0.0 >/dev/null 2>&1 & sleep 0.5';
/** Prints the HTTP status from `url`, or `unreachable`; the agent's own view of the network. */
const probe = (url: string) => [
  'python3',
  '-c',
  `import urllib.request\ntry:\n print(urllib.request.urlopen(${JSON.stringify(url)}, timeout=3).status)\nexcept Exception as e:\n print("unreachable", e)`,
];

const rolloutA = `test-${randomUUID()}`;
const rolloutB = `test-${randomUUID()}`;
let agentA: ManagedContainer;
let serverB: ManagedContainer;
const users: Docker.Container[] = [];
let hostServer: Server;

/** A container of the user's own, on Docker's default bridge, serving on port 8000. */
async function userContainer(cmd: string[]): Promise<Docker.Container> {
  const c = await dockerClient().createContainer({
    Image: BASE_IMAGE,
    Cmd: cmd,
    HostConfig: { NetworkMode: 'bridge' },
  });
  users.push(c);
  await c.start();
  return c;
}

before(async () => {
  await dockerReady();
  [agentA, serverB] = await Promise.all([
    createContainer({ image: BASE_IMAGE, rolloutId: rolloutA, phase: 'actor', network: 'public' }),
    createContainer({ image: BASE_IMAGE, rolloutId: rolloutB, phase: 'verifier', network: 'public' }),
  ]);
  hostServer = createServer((_req, res) => res.end('host'));
  await new Promise<void>((resolve) => hostServer.listen(0, '0.0.0.0', resolve));
});

after(async () => {
  await Promise.all([agentA?.remove(), serverB?.remove(), ...users.map((c) => c.remove({ force: true }))]);
  hostServer?.close();
});

test("an agent's container reaches the host, but not another rollout's services nor the user's containers", async () => {
  /** A container's one network: its address there, and the host's. */
  const ipOf = async (id: string) =>
    Object.values((await dockerClient().getContainer(id).inspect()).NetworkSettings.Networks)[0]!;
  assert.equal(serverB.network, ROLLOUT_NETWORK);
  await serverB.exec(['sh', '-c', SERVE]);
  assert.match((await serverB.exec(probe('http://127.0.0.1:8000/'))).stdout, /^200/m, 'B serves');
  const b = await ipOf(serverB.id);
  const user = await userContainer(['python3', '-m', 'http.server', '8000', '--bind', '0.0.0.0']);
  const userIp = (await ipOf(user.id)).IPAddress;

  // The probe sees reachability where there is some: a second container of the user's reaches the first.
  const neighbour = await userContainer(['sleep', 'infinity']);
  const out = (await runExec(dockerClient().getContainer(neighbour.id), probe(`http://${userIp}:8000/`))).stdout;
  assert.match(out, /200/, "containers on Docker's default bridge reach each other");

  const fromA = async (url: string) => (await agentA.exec(probe(url))).stdout.trim();
  assert.match(await fromA(`http://${b.IPAddress}:8000/`), /^unreachable/, "another rollout's service");
  assert.match(await fromA(`http://${userIp}:8000/`), /^unreachable/, "the user's own container");
  const port = (hostServer.address() as AddressInfo).port;
  assert.equal(await fromA(`http://${b.Gateway}:${port}/`), '200', 'the host, through its gateway');
});

test('the network is made once with that traffic off; an engine that looked before another made it keeps the one', async () => {
  const docker = dockerClient();
  const name = `hs-test-net-${randomUUID().slice(0, 8)}`;
  const ours = () => docker.listNetworks({ filters: { name: [name] } });
  try {
    // Calls at the same moment share one lookup.
    assert.deepEqual(await Promise.all([rolloutNetwork(docker, name), rolloutNetwork(docker, name)]), [name, name]);
    const [made] = await ours();
    assert.equal(made?.Options?.['com.docker.network.bridge.enable_icc'], 'false');
    // Another engine (another process) looked before this one made the network, so it makes it too: Docker before
    // 25 makes a second network of that name (and then starts no container on either), Docker 25 and later refuse
    // with 409. Either way it ends with the one network, the older.
    let looks = 0;
    const late = Object.create(docker) as Docker;
    late.listNetworks = (async (opts?: object) =>
      looks++ === 0 ? [] : docker.listNetworks(opts)) as typeof docker.listNetworks;
    assert.equal(await rolloutNetwork(late, name), name);
    assert.ok(looks >= 2, 'it looked again after making the network');
    assert.deepEqual(
      (await ours()).map((n) => n.Id),
      [made?.Id],
      'the older one stays',
    );
  } finally {
    for (const n of await ours()) await docker.getNetwork(n.Id).remove();
  }
});

test('a network of that name that lets containers reach each other is refused, naming the fix', async () => {
  const docker = dockerClient();
  const name = `hs-test-net-${randomUUID().slice(0, 8)}`;
  await docker.createNetwork({ Name: name, Driver: 'bridge' });
  try {
    await assert.rejects(rolloutNetwork(docker, name), (err: unknown) => {
      assert.ok(err instanceof HudStudioError);
      assert.match(err.message, /lets its containers reach each other/);
      assert.match(err.hint ?? '', new RegExp(`docker network rm ${name}`));
      return true;
    });
  } finally {
    await docker.getNetwork(name).remove();
  }
});
