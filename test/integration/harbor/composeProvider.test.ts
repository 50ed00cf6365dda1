/**
 * The compose provider for env.py tasks on the real Docker engine and
 * Compose CLI: the server runs in `main`, the grader reaches the sidecar by
 * name over the project network, the channel goes through main's loopback,
 * and release takes the whole project down. service_access is refused
 * without consent and for remote daemons.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ControlChannel } from '../../../client/src/engine/channel/client';
import {
  ComposeAwareProvider,
  ComposeProvider,
  ComposeSubstrate,
  ServiceAccessError,
  checkServiceAccess,
  composePlan,
} from '../../../client/src/engine/providers/compose';
import type { EnvironmentSpec, Provider } from '../../../client/src/engine/providers/provider';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { detectComposeCli } from '../../../client/src/engine/docker/composeCli';
import { CONTAINER_PIDS_LIMIT } from '../../../client/src/engine/docker/pidsLimit';
import { BASE_IMAGE, dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, assertNothingLeft } from './support';

before(dockerReady);

const ENV_DIR = join(HARBOR_FIXTURES, 'compose-env');
const spec = (runtimeConfig: EnvironmentSpec['runtimeConfig']): EnvironmentSpec => ({
  envFile: join(ENV_DIR, 'env.py'),
  envDir: ENV_DIR,
  runtimeConfig,
});
/** `2.26.1` of `2.26.1-4`: a distribution's own revision is in what the CLI prints, not in what it labels. */
const release = (version: string) => /\d+\.\d+\.\d+/.exec(version)?.[0] ?? version;
const acquireOpts = (rolloutId: string) => ({ rolloutId, phase: 'actor' as const, log: () => undefined });

test('a compose project is never taken for an isolated substrate; a plain environment is whatever the base provider says', () => {
  // A project may publish ports or join the host's networks: a verifier's project must not run while the agent works.
  const over = (isolates: boolean): Provider =>
    new ComposeAwareProvider({
      kind: 'docker',
      isolatesSubstrates: () => isolates,
      acquire: () => Promise.reject(new Error('unused')),
    });
  assert.equal(over(true).isolatesSubstrates?.(spec({ compose: 'docker-compose.yaml' })), false);
  assert.equal(over(true).isolatesSubstrates?.(spec(null)), true);
  assert.equal(over(false).isolatesSubstrates?.(spec(null)), false);
});

test('serves env.py in main; the grader reaches the sidecar; release leaves nothing', async (t) => {
  const rolloutId = randomUUID();
  const provider: Provider = new ComposeAwareProvider({
    kind: 'docker',
    acquire: () => Promise.reject(new Error('base provider must not be used')),
  });
  const substrate = await provider.acquire(spec({ compose: 'docker-compose.yaml' }), acquireOpts(rolloutId));
  try {
    assert.equal(substrate.info.provider, 'compose');
    await substrate.serve({ envName: 'compose-demo', log: () => undefined });
    const channel = new ControlChannel(await substrate.openChannel());
    assert.equal((await channel.hello()).env.name, 'compose-demo');
    await channel.start('recall', {});
    assert.equal((await channel.grade('cached-42')).score, 1);
    await channel.start('recall', {});
    assert.equal((await channel.grade('wrong')).score, 0);
    await channel.bye();
    const sock = await substrate.exec(['test', '-S', '/var/run/docker.sock']);
    assert.notEqual(sock.exitCode, 0, 'no Docker socket without service_access');
    // Every service has the pids limit (docs/security.md, "Exhaustion"); main runs under Docker's init, which reaps.
    const project = (substrate as ComposeSubstrate).project;
    const hosts = await Promise.all(
      project.services.map(async (name) => {
        const info = await dockerClient()
          .getContainer((await project.service(name)).id)
          .inspect();
        const made = release(info.Config.Labels['com.docker.compose.version'] ?? '');
        return [name, { pids: info.HostConfig.PidsLimit, init: info.HostConfig.Init ?? false, made }];
      }),
    );
    // Compose writes its own version on what it makes: the CLI this process found is the one that made the project,
    // and in the Compose v2 pass of the tests (scripts/test.mjs) that is v2, not whatever else the machine has.
    const cli = await detectComposeCli();
    const expected = process.env.HUD_STUDIO_COMPOSE_MAJOR;
    if (expected !== undefined)
      assert.equal(String(cli.major), expected, `Compose ${cli.version} ran, not v${expected}`);
    t.diagnostic(`Compose ${cli.version} (${cli.argv.join(' ')})`);
    const made = release(cli.version);
    assert.deepEqual(Object.fromEntries(hosts), {
      main: { pids: CONTAINER_PIDS_LIMIT, init: true, made },
      cache: { pids: CONTAINER_PIDS_LIMIT, init: false, made },
    });
  } finally {
    await substrate.release();
  }
  await assertNothingLeft(rolloutId);
});

test('service_access with consent on a local daemon mounts the socket into main only', async () => {
  const rolloutId = randomUUID();
  const provider = new ComposeProvider({ consent: { serviceAccess: true } });
  const substrate = await provider.acquire(
    spec({ compose: { file: 'docker-compose.yaml', service_access: true } }),
    acquireOpts(rolloutId),
  );
  try {
    assert.equal((await substrate.exec(['test', '-S', '/var/run/docker.sock'])).exitCode, 0);
  } finally {
    await substrate.release();
  }
  await assertNothingLeft(rolloutId);
});

test('service_access without consent is refused before anything starts', async () => {
  const rolloutId = randomUUID();
  await assert.rejects(
    new ComposeProvider().acquire(
      spec({ compose: 'docker-compose.yaml', service_access: true }),
      acquireOpts(rolloutId),
    ),
    (err: unknown) =>
      err instanceof ServiceAccessError &&
      /explicit consent/.test(err.message) &&
      /allow service access/.test(err.hint ?? ''),
  );
  await assertNothingLeft(rolloutId);
});

test("a compose file's variables get none of this machine's but with consent: the judge's key stays out of main", async () => {
  // An author's file can name any variable; Compose fills `${VAR}` and copies bare entries from its own environment.
  const dir = mkdtempSync(join(tmpdir(), 'hs-compose-vars-'));
  writeFileSync(
    join(dir, 'docker-compose.yaml'),
    `services:\n  main:\n    image: ${BASE_IMAGE}\n    command: ["sleep", "infinity"]\n    environment:\n      - HS_TEST_JUDGE_KEY\n      - COPY=\${HS_TEST_JUDGE_KEY:-blank}\n      - OWN=\${HS_TEST_OWN}\n`,
  );
  writeFileSync(join(dir, '.env'), 'HS_TEST_OWN=from-dotenv\n');
  process.env['HS_TEST_JUDGE_KEY'] = 'judge-k-771';
  const envOf = async (provider: ComposeProvider) => {
    const rolloutId = randomUUID();
    const logs: string[] = [];
    const substrate = await provider.acquire(
      { envFile: join(dir, 'env.py'), envDir: dir, runtimeConfig: { compose: 'docker-compose.yaml' } },
      { rolloutId, phase: 'actor', log: (_stream: string, line: string) => logs.push(line) },
    );
    try {
      return { env: (await substrate.exec(['env'])).stdout, logs: logs.join('\n') };
    } finally {
      await substrate.release();
      await assertNothingLeft(rolloutId);
    }
  };
  try {
    const withheld = await envOf(new ComposeProvider());
    assert.doesNotMatch(withheld.env, /judge-k-771/);
    assert.match(withheld.env, /^COPY=blank$/m);
    assert.match(withheld.env, /^OWN=from-dotenv$/m);
    assert.match(withheld.logs, /names this machine's HS_TEST_JUDGE_KEY: withheld/);
    const given = await envOf(new ComposeProvider({ consent: { serviceAccess: true } }));
    assert.match(given.env, /^HS_TEST_JUDGE_KEY=judge-k-771$/m);
    assert.match(given.logs, /gets this machine's HS_TEST_JUDGE_KEY \(consented/);
  } finally {
    delete process.env['HS_TEST_JUDGE_KEY'];
  }
});

test('service_access is refused for a remote daemon even with consent', () => {
  assert.throws(
    () => checkServiceAccess(spec({}), { serviceAccess: true }, 'tcp://10.1.2.3:2376'),
    /remote Docker daemon at tcp:\/\/10\.1\.2\.3:2376/,
  );
  assert.doesNotThrow(() => checkServiceAccess(spec({}), { serviceAccess: true }, 'unix:///var/run/docker.sock'));
});

test('runtime_config.compose forms: path, true, table; a missing file is a located error', () => {
  assert.equal(
    composePlan(spec({ compose: 'docker-compose.yaml' }))?.composeFile,
    join(ENV_DIR, 'docker-compose.yaml'),
  );
  assert.equal(composePlan(spec({ compose: true }))?.composeFile, join(ENV_DIR, 'docker-compose.yaml'));
  assert.equal(
    composePlan(spec({ compose: { file: 'docker-compose.yaml', service_access: true } }))?.serviceAccess,
    true,
  );
  assert.equal(composePlan(spec({ compose: 'docker-compose.yaml', network_mode: 'no-network' }))?.network, 'internal');
  assert.equal(composePlan(spec({ image: 'x' })), undefined);
  assert.throws(() => composePlan(spec({ compose: 'nope.yaml' })), /"nope\.yaml", which does not exist/);
});
