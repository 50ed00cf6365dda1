import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  DEFAULT_AGENT_TIMEOUT_SEC,
  DEFAULT_BUILD_TIMEOUT_SEC,
  DEFAULT_VERIFIER_TIMEOUT_SEC,
  loadHarborTask,
  parseTaskToml,
  type HarborTaskConfig,
  type HarborTomlIssue,
} from '../../../common/harbor';

const FIXTURES = join(__dirname, '../../fixtures/harbor');

function ok(source: string): HarborTaskConfig {
  const r = parseTaskToml(source);
  assert.ok(r.ok, `expected valid toml, got ${JSON.stringify(!r.ok && r.errors)}`);
  return r.config;
}

function errors(source: string): HarborTomlIssue[] {
  const r = parseTaskToml(source);
  assert.ok(!r.ok, 'expected errors');
  return r.errors;
}

describe('task.toml defaults', () => {
  test('an empty document gets every default', () => {
    const c = ok('');
    assert.equal(c.verifier.timeoutSec, DEFAULT_VERIFIER_TIMEOUT_SEC);
    assert.equal(c.verifier.timeoutSec, 600);
    assert.equal(c.agent.timeout_sec, DEFAULT_AGENT_TIMEOUT_SEC);
    assert.equal(c.environment.build_timeout_sec, DEFAULT_BUILD_TIMEOUT_SEC);
    assert.equal(c.environment.network_mode, 'public');
    assert.equal(c.environment.gpus, 0);
    assert.equal(c.environment.storage_mb, undefined);
    assert.equal(c.verifier.environmentMode, 'shared');
    assert.deepEqual(c.verifier.collect, []);
    assert.deepEqual(c.artifacts, []);
    assert.equal(c.verifier.environment, undefined);
  });

  test('collect hooks default to service "main" and 60 s', () => {
    const c = ok(
      '[[verifier.collect]]\ncommand = "ls"\n[[verifier.collect]]\ncommand = "pwd"\nservice = "db"\ntimeout_sec = 5\nuser = 1000\n',
    );
    assert.deepEqual(c.verifier.collect, [
      { command: 'ls', service: 'main', timeout_sec: 60 },
      { command: 'pwd', service: 'db', timeout_sec: 5, user: '1000' },
    ]);
  });

  test('artifacts accept paths and tables', () => {
    const c = ok(
      'artifacts = ["/app/a.txt", { source = "/out", destination = "o", exclude = ["*.tmp"], service = "web" }]',
    );
    assert.deepEqual(c.artifacts, [
      { source: '/app/a.txt', destination: undefined, exclude: [], service: 'main' },
      { source: '/out', destination: 'o', exclude: ['*.tmp'], service: 'web' },
    ]);
  });

  test('every documented field is accepted', () => {
    const c = ok(`schema_version = "1.1"
[task]
name = "org/name"
description = "d"
authors = ["a", { name = "b", email = "b@x" }]
keywords = ["k"]
[metadata]
anything = { nested = [1, 2] }
[agent]
timeout_sec = 30
user = "agent"
network_mode = "no-network"
[verifier]
timeout_sec = 12.5
env = { KEY = "\${K:-x}" }
user = "root"
environment_mode = "separate"
[verifier.environment]
docker_image = "img"
network_mode = "allowlist"
allowed_hosts = ["pypi.org"]
[environment]
docker_image = "base"
build_timeout_sec = 100
cpus = 2
memory_mb = 512
storage_mb = 1024
gpus = 1
env = { A = "1" }
workdir = "/w"
network_mode = "public"
healthcheck = { command = "true", interval_sec = 1, retries = 3 }
`);
    assert.equal(c.schemaVersion, '1.1');
    assert.equal(c.task.name, 'org/name');
    assert.equal(c.agent.network_mode, 'no-network');
    assert.equal(c.verifier.timeoutSec, 12.5);
    assert.equal(c.verifier.environmentMode, 'separate');
    assert.equal(c.verifier.environmentModeImplied, false);
    assert.deepEqual(c.verifier.environment?.allowed_hosts, ['pypi.org']);
    assert.equal(c.environment.storage_mb, 1024);
    assert.deepEqual(c.environment.healthcheck, { command: 'true', interval_sec: 1, retries: 3 });
    assert.deepEqual(c.metadata, { anything: { nested: [1, 2] } });
  });
});

describe('shared / separate rule', () => {
  test('a [verifier.environment] table without environment_mode means separate', () => {
    const c = ok('[verifier.environment]\nworkdir = "/v"\n');
    assert.equal(c.verifier.environmentMode, 'separate');
    assert.equal(c.verifier.environmentModeImplied, true);
    assert.equal(c.verifier.environment?.workdir, '/v');
    assert.equal(c.verifier.environment?.network_mode, 'public');
  });

  test('explicit separate without a table gets a default verifier environment', () => {
    const c = ok('[verifier]\nenvironment_mode = "separate"\n');
    assert.equal(c.verifier.environmentMode, 'separate');
    assert.equal(c.verifier.environment?.build_timeout_sec, 600);
  });

  test('shared with a [verifier.environment] table is an error at that table', () => {
    const [e, ...rest] = errors('[verifier]\nenvironment_mode = "shared"\n\n[verifier.environment]\nworkdir = "/v"\n');
    assert.equal(rest.length, 0);
    assert.equal(e!.code, 'harbor-schema');
    assert.equal(e!.line, 4);
    assert.equal(e!.key, 'verifier.environment');
    assert.match(e!.message, /shared.*\[verifier\.environment\].*fix:/);
  });
});

describe('task.toml errors', () => {
  test('a syntax error carries the TOML parser line and column', () => {
    const [e] = errors('a = 1\n[verifier]\ntimeout_sec = [1,\n');
    assert.equal(e!.code, 'harbor-invalid-toml');
    assert.equal(e!.line, 4);
    assert.ok(e!.column >= 1);
  });

  test('a wrong type names the key, the value, the line and the fix', () => {
    const [e] = errors('# comment\n[agent]\n  timeout_sec = "ten minutes"\n');
    assert.equal(e!.code, 'harbor-schema');
    assert.equal(e!.key, 'agent.timeout_sec');
    assert.equal(e!.line, 3);
    assert.equal(e!.column, 3);
    assert.match(e!.message, /agent\.timeout_sec must be a number, not the string "ten minutes" \(fix: /);
  });

  test('an unknown network mode lists the valid ones', () => {
    const [e] = errors('[verifier.environment]\nnetwork_mode = "intranet"\n');
    assert.equal(e!.key, 'verifier.environment.network_mode');
    assert.equal(e!.line, 2);
    assert.match(e!.message, /"intranet".*"public", "no-network", "allowlist"/);
  });

  test('errors inside array tables point at their own entry', () => {
    const [e] = errors('[[verifier.collect]]\ncommand = "a"\n[[verifier.collect]]\ncommand = 3\n');
    assert.equal(e!.key, 'verifier.collect[1].command');
    assert.equal(e!.line, 4);
  });

  test('relative artifact paths are rejected', () => {
    const [e] = errors('artifacts = ["out.txt"]\n');
    assert.equal(e!.key, 'artifacts[0]');
    assert.equal(e!.line, 1);
  });

  test('several problems are all reported', () => {
    const errs = errors('[agent]\ntimeout_sec = -1\n[environment]\ncpus = "two"\nnetwork_mode = "x"\n');
    assert.deepEqual(errs.map((e) => e.key).sort(), [
      'agent.timeout_sec',
      'environment.cpus',
      'environment.network_mode',
    ]);
  });

  test('unknown keys are warnings at their line, and the rest is still validated', () => {
    const r = parseTaskToml('[environment]\nworkdir = "/w"\nmemroy_mb = 5\n');
    assert.ok(r.ok);
    assert.equal(r.config.environment.workdir, '/w');
    assert.equal(r.warnings.length, 1);
    assert.equal(r.warnings[0]!.key, 'environment.memroy_mb');
    assert.equal(r.warnings[0]!.line, 3);
    assert.equal(r.warnings[0]!.severity, 'warning');
  });

  test('allowed_hosts without allowlist mode is an error, as in Harbor', () => {
    const e = errors('[environment]\nallowed_hosts = ["x.org"]\n');
    assert.match(e[0]!.message, /allowed_hosts is only valid with network_mode = "allowlist"/);
    assert.equal(e[0]!.line, 2);
  });
});

describe('loadHarborTask', () => {
  test('every good fixture loads', () => {
    for (const name of ['shared-basic', 'separate-artifacts', 'compose-sidecar', 'reward-json', 'no-network']) {
      const r = loadHarborTask(join(FIXTURES, name));
      assert.ok(r.ok, `${name}: ${JSON.stringify(!r.ok && r.errors)}`);
      assert.deepEqual(r.task.warnings, [], name);
    }
  });

  test('the loader decides the environment source and verification mode', () => {
    const sep = loadHarborTask(join(FIXTURES, 'separate-artifacts'));
    assert.ok(sep.ok);
    assert.equal(sep.task.config.verifier.environmentMode, 'separate');
    assert.equal(sep.task.environment.kind, 'dockerfile');
    assert.ok(sep.task.verifierDockerfile?.endsWith('tests/Dockerfile'));
    assert.equal(sep.task.name, 'hud-studio-fixtures/separate-artifacts');
    const compose = loadHarborTask(join(FIXTURES, 'compose-sidecar'));
    assert.ok(compose.ok);
    assert.equal(compose.task.environment.kind, 'compose');
  });

  const bad: [string, HarborTomlIssue['code'], RegExp, number][] = [
    ['syntax-error', 'harbor-invalid-toml', /TOML syntax error/, 8],
    ['wrong-types', 'harbor-schema', /agent\.timeout_sec must be a number/, 4],
    ['unknown-network', 'harbor-schema', /unknown network mode "intranet"/, 4],
    ['separate-without-dockerfile', 'harbor-missing-file', /tests\/Dockerfile is missing \(fix: .*separate/, 4],
  ];
  for (const [name, code, message, line] of bad) {
    test(`bad fixture ${name} gets a located ${code} error`, () => {
      const r = loadHarborTask(join(FIXTURES, 'bad', name));
      assert.ok(!r.ok);
      assert.equal(r.errors.length, 1, JSON.stringify(r.errors));
      assert.equal(r.errors[0]!.code, code);
      assert.match(r.errors[0]!.message, message);
      assert.equal(r.errors[0]!.line, line);
      assert.ok(r.tomlPath.endsWith(join(name, 'task.toml')));
    });
  }

  test('a folder without task.toml is a missing-file error, not a crash', () => {
    const r = loadHarborTask(join(FIXTURES, 'shared-basic', 'environment'));
    assert.ok(!r.ok);
    assert.equal(r.errors[0]!.code, 'harbor-missing-file');
  });
});

describe('syntax error positions', () => {
  test('an unterminated string is reported on its own line, not at the enclosing table', () => {
    const [e] = errors('a = 1\n\n[verifier]\nenv = { TOKEN = "open }\n');
    assert.equal(e!.line, 4);
    assert.equal(e!.column, 17);
    assert.match(e!.message, /never closed/);
  });

  test('strings with # and escaped quotes do not confuse the position finder', () => {
    const [e] = errors('a = "x # y \\" z"\nb = 1 2\n');
    assert.equal(e!.line, 2);
    assert.doesNotMatch(e!.message, /never closed/);
  });
});

test('a separate verifier with [verifier.environment] docker_image needs no tests/Dockerfile', async () => {
  const { mkdtempSync, cpSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'hs-harbor-img-'));
  cpSync(join(FIXTURES, 'bad', 'separate-without-dockerfile'), dir, { recursive: true });
  writeFileSync(
    join(dir, 'task.toml'),
    '[verifier]\nenvironment_mode = "separate"\n[verifier.environment]\ndocker_image = "hud-studio/base:bookworm"\n',
  );
  const r = loadHarborTask(dir);
  assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
  assert.equal(r.task.verifierDockerfile, undefined);
});
