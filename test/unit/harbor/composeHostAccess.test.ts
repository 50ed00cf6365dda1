/**
 * A task's own compose file that reaches the host runs only with the user's
 * consent (docs/security.md, "Compose files that reach the host").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { prepareCompose } from '../../../client/src/engine/docker/composeFile';
import { checkHostAccess, hostAccessIn } from '../../../client/src/engine/docker/composeHostAccess';
import { HudStudioError } from '../../../client/src/engine/errors';

/** A Harbor-shaped task folder: the compose file sits in environment/. */
const TASK = mkdtempSync(join(tmpdir(), 'hs-compose-task-'));
const PROJECT = join(TASK, 'environment');
mkdirSync(join(PROJECT, 'api'), { recursive: true });

function found(svc: Record<string, unknown>, top: Record<string, unknown> = {}) {
  return hostAccessIn({ services: { main: svc }, ...top }, PROJECT, [TASK]).map(
    (h) => `${h.key}: ${h.what}${h.socket ? ' [socket]' : ''}`,
  );
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
    const got = found({ volumes: [entry] });
    assert.equal(got.length, 1, JSON.stringify(entry));
    assert.match(got[0]!, /^services\.main\.volumes: binds \/\S*, which holds the Docker socket \[socket\]$/);
  }
});

test("binds, env files, build contexts, secrets and configs outside the task's folder", () => {
  assert.deepEqual(
    found(
      {
        volumes: ['/srv/share:/share', '~/.ssh:/keys:ro', '../../outside:/o'],
        env_file: ['./own.env', '/home/someone/.env', { path: '../../x.env' }],
        build: { context: '/home/someone/project' },
      },
      {
        secrets: { key: { file: '/home/someone/id_rsa' }, own: { file: './secret.txt' } },
        configs: { c: { file: '/etc/app.conf' } },
      },
    ),
    [
      "services.main.volumes: binds the host's /srv/share",
      `services.main.volumes: binds the host's ${homedir() === '/' ? '' : homedir()}/.ssh`,
      `services.main.volumes: binds the host's ${join(PROJECT, '..', '..', 'outside')}`,
      "services.main.env_file: reads the host's /home/someone/.env into its environment",
      `services.main.env_file: reads the host's ${join(PROJECT, '..', '..', 'x.env')} into its environment`,
      "services.main.build: builds from the host's /home/someone/project (its files go into the image)",
      "secrets.key.file: hands over the host's /home/someone/id_rsa",
      "configs.c.file: hands over the host's /etc/app.conf",
    ],
  );
});

test("the task's own files, named volumes, tmpfs and remote build contexts are left alone", () => {
  assert.deepEqual(
    found({
      volumes: [
        'data:/data',
        './cache:/cache',
        '../tests:/tests:ro',
        '/tmp',
        { type: 'volume', source: 'data', target: '/var/run/docker.sock' },
        { type: 'tmpfs', target: '/run' },
      ],
      env_file: '.env',
      build: './api',
    }),
    [],
  );
  assert.deepEqual(found({ build: 'https://github.com/acme/app.git#main' }), []);
  assert.deepEqual(found({ build: { context: 'git@github.com:acme/app.git' } }), []);
});

test("a link inside the task's folder counts where it leads", () => {
  symlinkSync('/etc', join(PROJECT, 'etc-link'));
  assert.deepEqual(found({ volumes: ['./etc-link:/e'] }), [
    `services.main.volumes: binds the host's ${join(PROJECT, 'etc-link')} (/etc)`,
  ]);
});

test('privileged services and the host namespaces', () => {
  assert.deepEqual(found({ privileged: true, pid: 'host', network_mode: 'host', ipc: 'host' }), [
    'services.main.privileged: runs privileged (root on the host)',
    "services.main.pid: shares the host's processes (pid: host)",
    "services.main.network_mode: shares the host's network (network_mode: host)",
  ]);
  assert.deepEqual(found({ privileged: false, pid: 'service:db', network_mode: 'bridge' }), []);
});

test('without consent the file is refused, naming the service, the key and the consent that allows it', () => {
  const all = hostAccessIn(
    {
      services: {
        main: { image: 'x' },
        helper: { image: 'y', volumes: ['/var/run/docker.sock:/var/run/docker.sock'] },
      },
    },
    PROJECT,
    [TASK],
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
  const of = (svc: Record<string, unknown>) => hostAccessIn({ services: { main: svc } }, PROJECT, [TASK]);
  const socket = of({ volumes: ['/var/run/docker.sock:/var/run/docker.sock'] });
  assert.deepEqual(checkHostAccess('/t/c.yaml', socket, true, 'unix:///var/run/docker.sock'), [
    'service "main" binds /var/run/docker.sock, which holds the Docker socket (consented: it reaches this machine)',
  ]);
  assert.throws(
    () => checkHostAccess('/t/c.yaml', socket, true, 'tcp://build-box:2375'),
    /refused for a remote Docker daemon/,
  );
  assert.equal(checkHostAccess('/t/c.yaml', of({ privileged: true }), true, 'tcp://build-box:2375').length, 1);
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
      'service "main" runs privileged (root on the host) (consented: it reaches this machine)',
    ]);
    assert.equal(parse(readFileSync(p.file, 'utf8')).services.main.privileged, true);
  } finally {
    p.dispose();
  }
  // The folder above the file is the task's when the caller says so; the file's own folder always is.
  writeFileSync(file, 'services:\n  main:\n    image: base:1\n    volumes: ["./cache:/c", "../data:/data"]\n');
  await assert.rejects(prepareCompose(base), /binds the host's/);
  (await prepareCompose({ ...base, ownFolder: join(dir, '..') })).dispose();
  writeFileSync(file, 'services:\n  main:\n    image: base:1\n');
  const q = await prepareCompose({ ...base, mountDockerSocket: true });
  q.dispose();
  assert.deepEqual(q.warnings, []);
});
