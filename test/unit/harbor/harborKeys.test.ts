/**
 * Every key Harbor v0.13 accepts is accepted here, with Harbor's meaning and
 * defaults, and every task.toml of Harbor's own examples parses with no error
 * and no unknown-key warning (the peer checkout is the reference).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  HEALTHCHECK_DEFAULTS,
  loadHarborTask,
  normaliseInstruction,
  parseTaskToml,
  type HarborTaskConfig,
} from '../../../common/harbor';
import { sizeToMb } from '../../../common/harbor/legacyKeys';
import { HARBOR_PEER_EXAMPLES } from '../../harborPeer';

const PEER_EXAMPLES = HARBOR_PEER_EXAMPLES;

function ok(source: string): { config: HarborTaskConfig; warnings: string[] } {
  const r = parseTaskToml(source);
  assert.ok(r.ok, `expected valid toml, got ${JSON.stringify(!r.ok && r.errors)}`);
  return { config: r.config, warnings: r.warnings.map((w) => w.message) };
}

describe('Harbor keys', () => {
  test('allow_internet = false cuts the network; an explicit network_mode wins', () => {
    assert.equal(ok('[environment]\nallow_internet = false\n').config.environment.network_mode, 'no-network');
    assert.equal(ok('[environment]\nallow_internet = true\n').config.environment.network_mode, 'public');
    assert.equal(
      ok('[environment]\nallow_internet = false\nnetwork_mode = "public"\n').config.environment.network_mode,
      'public',
    );
    const sep = ok('[verifier.environment]\nallow_internet = false\n').config;
    assert.equal(sep.verifier.environment?.network_mode, 'no-network');
    assert.equal(parseTaskToml('[environment]\nallow_internet = "no"\n').ok, false);
  });

  test('memory and storage size strings become memory_mb and storage_mb', () => {
    const c = ok('[environment]\nmemory = "2G"\nstorage = "512M"\n').config;
    assert.equal(c.environment.memory_mb, 2048);
    assert.equal(c.environment.storage_mb, 512);
    assert.equal(sizeToMb('1.5g'), 1536);
    assert.equal(sizeToMb('2048K'), 2);
    assert.equal(sizeToMb('2 GB'), undefined);
    const clash = parseTaskToml('[environment]\nmemory = "1G"\nmemory_mb = 512\n');
    assert.ok(!clash.ok && /contradicts memory_mb/.test(clash.errors[0]!.message));
    assert.ok(!parseTaskToml('[environment]\nmemory = "lots"\n').ok);
  });

  test('os, gpu_types, tpu, mcp_servers, skills_dir, phase network overrides, source, healthcheck.start_interval_sec', () => {
    const { config: c, warnings } = ok(`source = "terminal-bench"
[agent]
network_mode = "allowlist"
allowed_hosts = ["PyPI.org.", "*.github.com"]
[verifier]
network_mode = "no-network"
[environment]
os = "Linux"
gpu_types = ["H100"]
tpu = { type = "v6e", topology = "2x4" }
skills_dir = "/skills"
[environment.healthcheck]
command = "true"
start_interval_sec = 2
[[environment.mcp_servers]]
name = "tools"
transport = "http"
url = "http://tools:8000/mcp"
`);
    assert.deepEqual(warnings, []);
    assert.equal(c.source, 'terminal-bench');
    assert.equal(c.environment.os, 'linux');
    assert.deepEqual(c.agent.allowed_hosts, ['pypi.org', '*.github.com']);
    assert.equal(c.verifier.networkMode, 'no-network');
    assert.equal(c.environment.mcp_servers[0]?.transport, 'streamable-http');
    assert.deepEqual(c.environment.healthcheck, { command: 'true', start_interval_sec: 2 });
  });

  test('Harbor defaults: no agent time limit, verifier 600 s, healthcheck 5 s / 30 s / 3 retries', () => {
    const c = ok('').config;
    assert.equal(c.agent.timeout_sec, undefined);
    assert.equal(c.verifier.timeoutSec, 600);
    assert.deepEqual(HEALTHCHECK_DEFAULTS, {
      interval_sec: 5,
      timeout_sec: 30,
      retries: 3,
      start_period_sec: 0,
      start_interval_sec: 5,
    });
  });

  test('a separate verifier without its own table inherits [environment] (no-network included)', () => {
    const c = ok(
      '[verifier]\nenvironment_mode = "separate"\n[environment]\nnetwork_mode = "no-network"\nworkdir = "/w"\n',
    ).config;
    assert.equal(c.verifier.environmentInherited, true);
    assert.equal(c.verifier.environment?.network_mode, 'no-network');
    assert.equal(c.verifier.environment?.workdir, '/w');
  });

  test('[[steps]] with per-step agent, verifier, min_reward, healthcheck and artifacts; modes inherit', () => {
    const c = ok(`multi_step_reward_strategy = "final"
[verifier]
environment_mode = "separate"
[[steps]]
name = "one"
min_reward = 1.0
artifacts = ["/app/a"]
[steps.agent]
timeout_sec = 5
[steps.healthcheck]
command = "true"
[[steps]]
name = "two"
min_reward = { reward = 0.5 }
[steps.verifier]
environment_mode = "shared"
`).config;
    assert.equal(c.multiStepRewardStrategy, 'final');
    assert.deepEqual(
      c.steps?.map((s) => [s.name, s.verifier.environmentMode, s.minReward]),
      [
        ['one', 'separate', 1],
        ['two', 'shared', { reward: 0.5 }],
      ],
    );
    assert.equal(c.steps?.[0]?.agent.timeout_sec, 5);
    assert.ok(!parseTaskToml('[[steps]]\nname = "a"\n[[steps]]\nname = "a"\n').ok, 'duplicate step names');
    assert.ok(!parseTaskToml('[[steps]]\nname = "../x"\n').ok, 'step names are folder names');
  });

  test('artifact destinations may not escape or shadow manifest.json; sources may not hold ".."', () => {
    assert.ok(!parseTaskToml('artifacts = [{ source = "/a", destination = "../x" }]').ok);
    assert.ok(!parseTaskToml('artifacts = [{ source = "/a", destination = "manifest.json" }]').ok);
    assert.ok(!parseTaskToml('artifacts = ["/a/../etc"]').ok);
  });

  test('a Windows task is a clear "not supported on Linux", a warning for check and an error for run', () => {
    const r = parseTaskToml('[environment]\nos = "windows"\n');
    assert.ok(r.ok);
    assert.match(r.warnings[0]!.message, /not supported on Linux/);
  });

  test('instructions lose leading canary lines and carriage returns, as Harbor hands them over', () => {
    assert.equal(
      normaliseInstruction('<!-- BENCHMARK canary GUID 1 -->\n# canary string\n\r\nDo it.\r\nNow.\n'),
      'Do it.\nNow.\n',
    );
    assert.equal(normaliseInstruction('# Title\nbody'), '# Title\nbody');
  });
});

/** Every task directory under the peer's examples (some examples hold several). */
export function peerExampleTasks(): string[] {
  const out: string[] = [];
  const visit = (dir: string): void => {
    if (existsSync(join(dir, 'task.toml'))) out.push(dir);
    else for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) visit(join(dir, e.name));
  };
  visit(PEER_EXAMPLES);
  return out.sort();
}

describe("Harbor's own examples", () => {
  test('the peer checkout is present', () => assert.ok(existsSync(PEER_EXAMPLES), `${PEER_EXAMPLES} is missing`));
  for (const dir of existsSync(PEER_EXAMPLES) ? peerExampleTasks() : []) {
    const name = relative(PEER_EXAMPLES, dir);
    test(`${name}: task.toml has no error and no unknown-key warning; the task loads (or says why not)`, () => {
      const r = parseTaskToml(readFileSync(join(dir, 'task.toml'), 'utf8'));
      assert.ok(r.ok, JSON.stringify(!r.ok && r.errors));
      assert.deepEqual(
        r.warnings.filter((w) => w.code !== 'harbor-unsupported'),
        [],
      );
      const loaded = loadHarborTask(dir);
      if (r.config.environment.os === 'windows') {
        assert.ok(!loaded.ok && /not supported on Linux/.test(loaded.errors[0]!.message));
      } else if (name === 'hello-computer-use') {
        // Its environment is a remote desktop provider's; there is nothing for Docker to build.
        assert.ok(!loaded.ok && /environment\/Dockerfile is missing/.test(loaded.errors[0]!.message));
      } else {
        assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
      }
    });
  }
});
