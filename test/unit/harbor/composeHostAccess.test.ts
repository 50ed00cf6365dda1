/**
 * A task's own compose file that hands a service the host runs only with
 * the user's consent (docs/security.md, "Compose files that reach the host").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { prepareCompose } from '../../../client/src/engine/docker/composeFile';
import { checkHostAccess, hostAccessIn } from '../../../client/src/engine/docker/composeHostAccess';
import { HudStudioError } from '../../../client/src/engine/errors';

const PROJECT = '/srv/task/environment';

function found(svc: Record<string, unknown>) {
  return hostAccessIn({ main: svc }, PROJECT).map((h) => `${h.key}: ${h.what}${h.socket ? ' [socket]' : ''}`);
}

test('binds of the Docker socket, or of a folder that holds it, in either syntax', () => {
  for (const entry of [
    '/var/run/docker.sock:/var/run/docker.sock',
    '/run/docker.sock:/sock:ro',
    '/var/run:/hostrun',
    '/:/host',
    '/var/run/../run/docker.sock:/s',
    { type: 'bind', source: '/var/run/docker.sock', target: '/var/run/docker.sock' },
  ]) {
    const [one, ...rest] = found({ volumes: [entry] });
    assert.match(
      one ?? '',
      /^volumes: binds \/(var\/run|run)?(\/docker\.sock)?, which holds the Docker socket \[socket\]$/,
      JSON.stringify(entry),
    );
    assert.deepEqual(rest, []);
  }
});

test('other volumes, named volumes and tmpfs are left alone', () => {
  assert.deepEqual(
    found({
      volumes: [
        'data:/data',
        './cache:/cache',
        '/srv/share:/share',
        '/var/lib/app:/app',
        '/tmp',
        { type: 'volume', source: 'data', target: '/var/run/docker.sock' },
        { type: 'tmpfs', target: '/run' },
        `~/project:/project`,
      ],
    }),
    [],
  );
  // A relative or home-relative path is a bind where it resolves.
  assert.equal(found({ volumes: ['../../../../var/run:/r'] }).length, 1);
  assert.equal(hostAccessIn({ main: { volumes: ['~/x:/x'] } }, PROJECT).length, homedir() === '/' ? 1 : 0);
});

test('privileged services and the host namespaces', () => {
  assert.deepEqual(found({ privileged: true, pid: 'host', network_mode: 'host', ipc: 'host' }), [
    'privileged: runs privileged (root on the host)',
    "pid: shares the host's processes (pid: host)",
    "network_mode: shares the host's network (network_mode: host)",
  ]);
  assert.deepEqual(found({ privileged: false, pid: 'service:db', network_mode: 'bridge' }), []);
});

test('without consent the file is refused, naming the service, the key and the consent that allows it', () => {
  const all = hostAccessIn(
    { main: { image: 'x' }, helper: { image: 'y', volumes: ['/var/run/docker.sock:/var/run/docker.sock'] } },
    PROJECT,
  );
  assert.throws(
    () => checkHostAccess('/t/docker-compose.yaml', all, false),
    (err: unknown) => {
      assert.ok(err instanceof HudStudioError);
      assert.match(err.message, /^\/t\/docker-compose\.yaml: service "helper" binds \/var\/run\/docker\.sock/);
      assert.match(err.message, /needs your explicit consent/);
      assert.deepEqual(err.location, { file: '/t/docker-compose.yaml', key: 'services.helper.volumes' });
      assert.deepEqual(err.fix, { kind: 'allow-service-access' });
      return true;
    },
  );
  assert.deepEqual(checkHostAccess('/t/docker-compose.yaml', [], false), []);
});

test('with consent it runs with a warning, except the socket of a remote daemon', () => {
  const socket = hostAccessIn({ main: { volumes: ['/var/run/docker.sock:/var/run/docker.sock'] } }, PROJECT);
  const privileged = hostAccessIn({ main: { privileged: true } }, PROJECT);
  assert.deepEqual(checkHostAccess('/t/c.yaml', socket, true, 'unix:///var/run/docker.sock'), [
    'service "main" binds /var/run/docker.sock, which holds the Docker socket (consented: it controls this machine)',
  ]);
  assert.throws(
    () => checkHostAccess('/t/c.yaml', socket, true, 'tcp://build-box:2375'),
    /refused for a remote Docker daemon/,
  );
  assert.equal(checkHostAccess('/t/c.yaml', privileged, true, 'tcp://build-box:2375').length, 1);
});

test('prepareCompose applies it to the task file, not to the socket service_access adds', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-compose-host-'));
  const file = join(dir, 'docker-compose.yaml');
  writeFileSync(file, 'services:\n  main:\n    image: base:1\n    privileged: true\n');
  const base = { composeFile: file, rolloutId: 'r-h', phase: 'actor', network: 'default' as const };
  await assert.rejects(prepareCompose(base), /service "main" runs privileged/);
  const p = await prepareCompose({ ...base, allowHostAccess: true });
  try {
    assert.deepEqual(p.warnings, [
      'service "main" runs privileged (root on the host) (consented: it controls this machine)',
    ]);
    assert.equal(parse(readFileSync(p.file, 'utf8')).services.main.privileged, true);
  } finally {
    p.dispose();
  }
  writeFileSync(file, 'services:\n  main:\n    image: base:1\n');
  const q = await prepareCompose({ ...base, mountDockerSocket: true });
  q.dispose();
  assert.deepEqual(q.warnings, []);
});
