import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { composeProjectName } from '../../../client/src/engine/docker/compose';
import { limitPids, prepareCompose } from '../../../client/src/engine/docker/composeFile';
import { CONTAINER_PIDS_LIMIT } from '../../../client/src/engine/docker/pidsLimit';
import { LABELS } from '../../../client/src/engine/docker/types';
import { HudStudioError } from '../../../client/src/engine/errors';

function composeDir(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hs-compose-unit-'));
  writeFileSync(join(dir, 'docker-compose.yaml'), text);
  return dir;
}

const IMAGES_ONLY = `services:
  main:
    image: base:1
    environment:
      - KEEP=1
      - FROM_HOST
  db:
    image: db:2
    labels: ["x=y"]
    command: ["serve"]
`;

test('the generated file labels every service and the network, keeps main alive and leaves the original alone', async () => {
  const dir = composeDir(IMAGES_ONLY);
  const p = await prepareCompose({
    composeFile: join(dir, 'docker-compose.yaml'),
    rolloutId: 'r-1',
    phase: 'actor',
    network: 'internal',
    keepMainAlive: true,
    mountDockerSocket: true,
    mainEnv: { ADDED: 'v' },
    mainLimits: { cpus: 1.5, memoryMb: 300 },
  });
  try {
    const doc = parse(readFileSync(p.file, 'utf8'));
    assert.equal(p.projectDirectory, dir);
    assert.deepEqual(p.services, ['main', 'db']);
    for (const svc of ['main', 'db']) {
      assert.equal(doc.services[svc].labels[LABELS.rollout], 'r-1');
      assert.equal(doc.services[svc].labels[LABELS.managed], 'true');
      assert.equal(doc.services[svc].labels[LABELS.ownerPid], String(process.pid));
    }
    assert.equal(doc.services.db.labels.x, 'y');
    assert.deepEqual(doc.services.main.command, ['sleep', 'infinity']);
    assert.deepEqual(doc.services.db.command, ['serve']);
    assert.equal(doc.services.main.init, true, "Docker's init reaps what the engine kills in main");
    assert.equal(doc.services.db.init, undefined);
    assert.deepEqual(doc.services.main.environment, ['KEEP=1', 'FROM_HOST', 'ADDED=v']);
    assert.deepEqual(doc.services.main.volumes, ['/var/run/docker.sock:/var/run/docker.sock']);
    assert.equal(doc.services.db.volumes, undefined, 'the socket goes to main only');
    assert.equal(doc.services.main.cpus, 1.5);
    assert.equal(doc.services.main.mem_limit, '300m');
    assert.equal(doc.networks.default.internal, true);
    // Internal alone still leaves the host an address on the bridge, where its services answer.
    assert.deepEqual(doc.networks.default.driver_opts, { 'com.docker.network.bridge.inhibit_ipv4': 'true' });
    assert.equal(doc.networks.default.labels[LABELS.rollout], 'r-1');
    assert.equal(readFileSync(join(dir, 'docker-compose.yaml'), 'utf8'), IMAGES_ONLY);
  } finally {
    p.dispose();
  }
  assert.ok(!existsSync(p.file));
});

test("without network, every bridge network of the file is internal and gets no address of the host's", async () => {
  const dir = composeDir(`services:
  main:
    image: base:1
    networks: [back, mesh, bare]
networks:
  back:
    driver_opts:
      com.docker.network.driver.mtu: "1400"
  mesh:
    driver: overlay
  bare:
`);
  const p = await prepareCompose({
    composeFile: join(dir, 'docker-compose.yaml'),
    rolloutId: 'r-2',
    phase: 'actor',
    network: 'internal',
    keepMainAlive: true,
  });
  try {
    const { networks } = parse(readFileSync(p.file, 'utf8'));
    assert.equal(networks.back.internal, true);
    assert.deepEqual(networks.back.driver_opts, {
      'com.docker.network.driver.mtu': '1400',
      'com.docker.network.bridge.inhibit_ipv4': 'true',
    });
    // Another driver has no bridge to leave the address off; internal still holds.
    assert.equal(networks.mesh.internal, true);
    assert.equal(networks.mesh.driver_opts, undefined);
    // A network declared with nothing after its name used to stay as Docker makes it: with a way out.
    assert.deepEqual(networks.bare, {
      internal: true,
      driver_opts: { 'com.docker.network.bridge.inhibit_ipv4': 'true' },
    });
  } finally {
    p.dispose();
  }
});

test("an allowlist adds the engine's proxy on main's networks and one that reaches out; main reaches its services directly", async () => {
  const dir = composeDir(`services:
  main:
    image: base:1
    networks: [back]
    environment: { KEEP: "1" }
    dns_opt: [ndots:2]
  db:
    image: db:2
    networks: [back]
networks:
  back: {}
`);
  const p = await prepareCompose({
    composeFile: join(dir, 'docker-compose.yaml'),
    rolloutId: 'r-3',
    phase: 'actor',
    network: 'internal',
    egress: { image: 'proxy:1' },
    keepMainAlive: true,
  });
  try {
    const { services, networks } = parse(readFileSync(p.file, 'utf8'));
    assert.deepEqual(p.services, ['main', 'db'], "the proxy is not one of the task's services");
    assert.equal(p.egressService, 'hud-studio-egress');
    const proxy = services['hud-studio-egress'];
    assert.equal(proxy.image, 'proxy:1');
    assert.deepEqual(proxy.networks, ['back', 'hud-studio-egress-out']);
    assert.equal(proxy.labels[LABELS.rollout], 'r-3');
    assert.equal(networks.back.internal, true);
    assert.equal(networks['hud-studio-egress-out'].internal, undefined, 'the one way out');
    assert.equal(services.main.environment.KEEP, '1');
    assert.equal(services.main.environment.HTTPS_PROXY, 'http://hud-studio-egress:3128');
    assert.equal(services.main.environment.NO_PROXY, 'localhost,127.0.0.1,::1,main,db');
    assert.deepEqual(services.main.dns_opt, ['ndots:2', 'timeout:1', 'attempts:1']);
    assert.equal(services.db.environment, undefined, 'other services keep no way out');
  } finally {
    p.dispose();
  }
  const clash = composeDir(`services:
  main:
    image: base:1
  hud-studio-egress:
    image: x:1
`);
  await assert.rejects(
    prepareCompose({
      composeFile: join(clash, 'docker-compose.yaml'),
      rolloutId: 'r-4',
      phase: 'actor',
      network: 'internal',
      egress: { image: 'proxy:1' },
    }),
    /has a service named "hud-studio-egress", the name of HUD Studio's allowlist proxy/,
  );
});

test("every service gets a pids limit: the file's own when lower, ours when it asks for more or for none", async () => {
  const dir = composeDir(`services:
  main:
    image: base:1
  quiet:
    image: s:1
    pids_limit: 64
  greedy:
    image: s:1
    pids_limit: ${CONTAINER_PIDS_LIMIT * 10}
  unlimited:
    image: s:1
    pids_limit: -1
`);
  const p = await prepareCompose({
    composeFile: join(dir, 'docker-compose.yaml'),
    rolloutId: 'r-3',
    phase: 'actor',
    network: 'default',
  });
  try {
    const doc = parse(readFileSync(p.file, 'utf8'));
    const limits = Object.fromEntries(p.services.map((s) => [s, doc.services[s].pids_limit]));
    assert.deepEqual(limits, {
      main: CONTAINER_PIDS_LIMIT,
      quiet: 64,
      greedy: CONTAINER_PIDS_LIMIT,
      unlimited: CONTAINER_PIDS_LIMIT,
    });
    assert.equal(p.warnings.length, 2, p.warnings.join('\n'));
    assert.match(
      p.warnings[0]!,
      new RegExp(`"greedy" asks for a pids limit of ${CONTAINER_PIDS_LIMIT * 10}.* ${CONTAINER_PIDS_LIMIT} `),
    );
    assert.match(p.warnings[1]!, /"unlimited" asks for no pids limit/);
  } finally {
    p.dispose();
  }
});

test('a limit in deploy.resources.limits.pids (Compose v2) is read, and both limits get the same value', () => {
  // Compose v2 refuses a service whose two limits differ; v1 cannot read `deploy` limits at all, so this is the
  // transformation alone (prepareCompose has Compose read the file first).
  const deployed = { image: 's:1', deploy: { resources: { limits: { pids: 100, memory: '50M' } } } };
  const both = { image: 's:1', pids_limit: 0, deploy: { resources: { limits: { pids: 200 } } } };
  const warnings: string[] = [];
  limitPids('deployed', deployed, warnings);
  limitPids('both', both, warnings);
  assert.deepEqual(deployed, {
    image: 's:1',
    pids_limit: 100,
    deploy: { resources: { limits: { pids: 100, memory: '50M' } } },
  });
  assert.equal(both.pids_limit, 200);
  assert.equal(both.deploy.resources.limits.pids, 200);
  assert.deepEqual(warnings, []);
});

test('a compose file without "main" or with unsupported build keys is a located error', async () => {
  const noMain = composeDir('services:\n  web:\n    image: x\n');
  await assert.rejects(
    prepareCompose({
      composeFile: join(noMain, 'docker-compose.yaml'),
      rolloutId: 'r',
      phase: 'actor',
      network: 'default',
    }),
    (e: unknown) => e instanceof HudStudioError && /no service named "main"/.test(e.message),
  );
  const args = composeDir('services:\n  main:\n    build:\n      context: .\n      args: { A: 1 }\n');
  await assert.rejects(
    prepareCompose({
      composeFile: join(args, 'docker-compose.yaml'),
      rolloutId: 'r',
      phase: 'actor',
      network: 'default',
    }),
    /build\.args, which HUD Studio does not support yet/,
  );
  const bad = composeDir('services: [\n');
  await assert.rejects(
    prepareCompose({
      composeFile: join(bad, 'docker-compose.yaml'),
      rolloutId: 'r',
      phase: 'actor',
      network: 'default',
    }),
    /not valid YAML/,
  );
});

test('project names are unique per rollout and phase and valid for Compose v1 and v2', () => {
  const a = composeProjectName('0F3A-uuid', 'actor');
  assert.equal(a, 'hudstudio-0f3a-uuid-actor');
  assert.notEqual(a, composeProjectName('0F3A-uuid', 'verifier'));
  assert.match(composeProjectName('A B/C', 'x'), /^[a-z0-9_-]+$/);
});
