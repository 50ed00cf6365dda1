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
import { hostAccessIn, variablesNamedIn } from '../../../common/compose/hostAccess';
import { checkHostAccess } from '../../../client/src/engine/docker/composeHostAccess';
import { HudStudioError } from '../../../client/src/engine/errors';

/** A Harbor-shaped task folder: the compose file sits in environment/. */
const TASK = mkdtempSync(join(tmpdir(), 'hs-compose-task-'));
const PROJECT = join(TASK, 'environment');
mkdirSync(join(PROJECT, 'api'), { recursive: true });

function found(svc: Record<string, unknown>, top: Record<string, unknown> = {}) {
  return hostAccessIn({ services: { main: svc }, ...top }, PROJECT, [TASK]).map(
    (h) => `${h.path.join('.')}: ${h.what}${h.socket ? ' [socket]' : ''}`,
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

test('privileged services, and the namespaces of the host or of containers outside the task', () => {
  assert.deepEqual(
    found({
      privileged: true,
      pid: 'host',
      network_mode: 'host',
      ipc: 'host',
      userns_mode: 'host',
      cgroup: 'host',
    }),
    [
      'services.main.privileged: runs privileged (root on the host)',
      "services.main.pid: shares the host's processes (pid: host)",
      "services.main.ipc: shares the host's shared memory (ipc: host)",
      "services.main.network_mode: shares the host's network (network_mode: host)",
      "services.main.userns_mode: shares the host's user namespace (its root is the host's root) (userns_mode: host)",
      "services.main.cgroup: shares the host's control groups (cgroup: host)",
    ],
  );
  assert.deepEqual(
    found({ pid: 'container:grader', network_mode: 'container:abc123', volumes_from: ['container:grader:ro', 'db'] }),
    [
      'services.main.pid: joins the processes of grader, a container outside the task',
      'services.main.network_mode: joins the network of abc123, a container outside the task',
      'services.main.volumes_from: mounts the volumes of grader, a container outside the task',
    ],
  );
  // Compose v2 turns a quoted "true" into the boolean after filling variables.
  assert.equal(found({ privileged: 'true' }).length, 1);
  assert.deepEqual(
    found({ privileged: false, pid: 'service:db', network_mode: 'none', ipc: 'shareable', volumes_from: ['db'] }),
    [],
  );
});

test("capabilities, devices and security options that open the host's kernel", () => {
  assert.deepEqual(
    found({
      cap_add: ['SYS_ADMIN', 'cap_sys_module', 'NET_ADMIN', 'SYS_PTRACE', 'CHOWN', 'ALL'],
      devices: ['/dev/sda:/dev/xvda:rwm', { source: '/dev/kmsg', target: '/dev/kmsg', permissions: 'r' }],
      device_cgroup_rules: ['b 8:* rmw'],
      security_opt: ['seccomp:unconfined', 'apparmor=unconfined', 'label:disable', 'no-new-privileges:true'],
    }),
    [
      'services.main.cap_add: adds the capability SYS_ADMIN (mounts, and the known ways out of a container they open)',
      "services.main.cap_add: adds the capability SYS_MODULE (loads modules into the host's kernel)",
      'services.main.cap_add: adds the capability ALL (every capability)',
      "services.main.devices: hands over the host's device /dev/sda",
      "services.main.devices: hands over the host's device /dev/kmsg",
      "services.main.device_cgroup_rules: may use the host's devices (device_cgroup_rules)",
      "services.main.security_opt: turns off Docker's system-call filter (seccomp:unconfined)",
      'services.main.security_opt: turns off its AppArmor profile (apparmor=unconfined)',
      'services.main.security_opt: turns off its SELinux labels (label:disable)',
    ],
  );
  assert.deepEqual(found({ cap_add: ['NET_ADMIN', 'SYS_PTRACE'], cap_drop: ['ALL'], security_opt: [] }), []);
});

test("Docker's default network and networks made outside the task", () => {
  assert.deepEqual(
    found(
      { network_mode: 'bridge' },
      {
        networks: {
          shared: { external: true, name: 'lab-net' },
          legacy: { external: { name: 'old-net' } },
          plain: { external: true },
          own: { driver: 'bridge' },
          off: { external: false },
        },
      },
    ),
    [
      "services.main.network_mode: joins Docker's default network, where the user's own containers are (network_mode: bridge)",
      "networks.shared.external: joins the existing network lab-net, whose containers are not the task's",
      "networks.legacy.external: joins the existing network old-net, whose containers are not the task's",
      "networks.plain.external: joins the existing network plain, whose containers are not the task's",
    ],
  );
});

test('named volumes that mount a host path', () => {
  assert.deepEqual(
    found(
      { volumes: ['etc:/e', 'own:/o', 'plain:/p'] },
      {
        volumes: {
          etc: { driver: 'local', driver_opts: { type: 'none', o: 'bind', device: '/etc' } },
          run: { driver_opts: { type: 'none', o: 'bind', device: '/var/run' } },
          own: { driver_opts: { type: 'none', o: 'bind', device: './data' } },
          nfs: { driver_opts: { type: 'nfs', o: 'addr=10.0.0.2', device: ':/export' } },
          plain: {},
        },
      },
    ),
    [
      "volumes.etc.driver_opts: binds the host's /etc",
      'volumes.run.driver_opts: binds /var/run, which holds the Docker socket [socket]',
    ],
  );
  // An env file whose path is a variable is Compose's to fill; it is named as written.
  assert.deepEqual(found({ env_file: '${HOME}/.env' }), [
    "services.main.env_file: reads the host's ${HOME}/.env into its environment",
  ]);
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

test('the file is judged as Compose reads it: variables, merge keys and extends', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-compose-resolved-'));
  const file = join(dir, 'docker-compose.yaml');
  const base = { composeFile: file, rolloutId: 'r-v', phase: 'actor', network: 'default' as const };
  const refused = async (text: string, expected: RegExp) => {
    writeFileSync(file, text);
    await assert.rejects(prepareCompose(base), (err: unknown) => {
      assert.ok(err instanceof HudStudioError, String(err));
      assert.match(err.message, expected);
      assert.equal(err.location?.file, file);
      return true;
    });
  };
  // As written, the first reads as a named volume; Compose binds the host's home.
  await refused(
    'services:\n  main:\n    image: base:1\n    volumes: ["${HOME}/.ssh:/keys"]\n',
    new RegExp(`binds the host's ${homedir() === '/' ? '' : homedir()}/\\.ssh`),
  );
  await refused(
    'services:\n  main:\n    image: base:1\n    pid: "${HS_UNSET_PID:-host}"\n',
    /shares the host's processes/,
  );
  // The project's .env fills variables too.
  writeFileSync(join(dir, '.env'), 'HS_SOCKET_DIR=/var/run\n');
  await refused(
    'services:\n  main:\n    image: base:1\n    volumes: ["${HS_SOCKET_DIR}:/r"]\n',
    /binds \/var\/run, which holds the Docker socket/,
  );
  await refused(
    'x-base: &base\n  privileged: true\nservices:\n  main:\n    <<: *base\n    image: base:1\n',
    /service "main" runs privileged/,
  );
  await refused(
    'services:\n  tool:\n    image: base:1\n    cap_add: [SYS_ADMIN]\n  main:\n    image: base:1\n    extends: { service: tool }\n',
    /service "main" adds the capability SYS_ADMIN/,
  );
  // What Compose itself cannot read is refused with its own words, naming the file.
  await refused('services:\n  main:\n    image: base:1\n    volumes: 7\n', /Compose cannot read it[\s\S]*volumes/);
  writeFileSync(file, 'services:\n  main:\n    image: base:1\n    volumes: ["${HS_UNSET_DIR:-./cache}:/c"]\n');
  (await prepareCompose(base)).dispose();
});

test('the variables a file asks Compose for: interpolated anywhere, and bare environment entries', () => {
  assert.deepEqual(
    variablesNamedIn({
      services: {
        main: {
          image: '${REGISTRY:-docker.io}/app:$TAG',
          environment: ['BARE', 'SET=1', 'COPY=${FROM_HOST}', 'LITERAL=$$NOT_ONE'],
        },
        db: { environment: { PASSWORD: null, USER: 'app' }, volumes: ['${DATA_DIR}:/d'] },
      },
      secrets: { token: { environment: 'GITHUB_TOKEN' } },
    }).sort(),
    ['BARE', 'DATA_DIR', 'FROM_HOST', 'GITHUB_TOKEN', 'PASSWORD', 'REGISTRY', 'TAG'],
  );
});

test("Compose judges and runs the file with only this machine's variables it needs, unless consented", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-compose-env-'));
  const file = join(dir, 'docker-compose.yaml');
  writeFileSync(file, 'services:\n  main:\n    image: base:1\n    volumes: ["${HS_TEST_HOST_DIR:-./cache}:/c"]\n');
  const base = { composeFile: file, rolloutId: 'r-e', phase: 'actor', network: 'default' as const };
  process.env['HS_TEST_HOST_DIR'] = '/etc';
  try {
    // Without consent Compose never sees the variable: the default applies, and the bind is the task's own.
    const p = await prepareCompose(base);
    p.dispose();
    assert.equal(p.env['HS_TEST_HOST_DIR'], undefined);
    assert.ok(p.env['PATH'] && p.env['DOCKER_HOST'], 'Compose still finds its tools and the daemon');
    assert.deepEqual(p.warnings, [
      "the compose file names this machine's HS_TEST_HOST_DIR: withheld, Compose fills them in blank (put a value the task needs in the .env beside the file, or allow service access)",
    ]);
    // With consent it gets the variable, and what it then binds is judged and named.
    const q = await prepareCompose({ ...base, allowHostAccess: true });
    q.dispose();
    assert.equal(q.env['HS_TEST_HOST_DIR'], '/etc');
    assert.deepEqual(q.warnings, [
      'service "main" binds the host\'s /etc (consented: it reaches this machine)',
      "the compose file gets this machine's HS_TEST_HOST_DIR (consented: it reaches this machine)",
    ]);
  } finally {
    delete process.env['HS_TEST_HOST_DIR'];
  }
});
