/**
 * The compose-v2 test layer's Docker config folder (scripts/composeV2Config.mjs), read by the real Docker
 * CLI: it must talk to the daemon the user's own config chooses and see the user's plugins, with Compose v2
 * as `docker compose` in place of theirs.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { composeV2Config, userDockerConfig } from '../../../scripts/composeV2Config.mjs';
import { tempDir } from './support';

/** A Docker CLI plugin named `name` that answers the CLI's metadata call and prints `says` when run. */
function plugin(path: string, name: string, version: string, says: string): void {
  writeFileSync(
    path,
    `#!/bin/sh
if [ "$1" = docker-cli-plugin-metadata ]; then
  echo '{"SchemaVersion":"0.1.0","Vendor":"hud-studio tests","Version":"${version}","ShortDescription":"${name}"}'
  exit 0
fi
echo "${says}"
`,
  );
  chmodSync(path, 0o755);
}

describe("the compose-v2 layer's Docker config", () => {
  const dir = tempDir('compose-v2-config');
  after(() => rmSync(dir, { recursive: true, force: true }));
  // Without DOCKER_HOST or DOCKER_CONTEXT, which would override the context the config folder chooses.
  const { DOCKER_HOST: _host, DOCKER_CONTEXT: _context, ...base } = process.env;
  const docker = (config: string, ...args: string[]) =>
    execFileSync('docker', args, { env: { ...base, DOCKER_CONFIG: config }, encoding: 'utf8' }).trim();

  test("keeps the user's context and plugins, with Compose v2 in place of theirs", () => {
    const user = join(dir, 'user');
    mkdirSync(join(user, 'cli-plugins'), { recursive: true });
    // A context of the user's own, made and chosen by the real CLI: the layer must use it, not the default socket.
    docker(user, 'context', 'create', 'elsewhere', '--docker', `host=unix://${join(dir, 'other.sock')}`);
    docker(user, 'context', 'use', 'elsewhere');
    plugin(join(user, 'cli-plugins', 'docker-compose'), 'compose', 'v1.29.2', 'the user compose');
    plugin(join(user, 'cli-plugins', 'docker-greet'), 'greet', 'v0.1.0', 'the user greet');
    const v2 = join(dir, 'v2-docker-compose');
    plugin(v2, 'compose', 'v2.99.0', 'compose v2');

    const config = composeV2Config(v2, join(dir, 'layer'), user);

    assert.equal(docker(config, 'context', 'show'), 'elsewhere');
    assert.equal(docker(config, 'compose'), 'compose v2');
    assert.equal(docker(config, 'greet'), 'the user greet');
    // The user's folder is untouched: their `docker compose` is still theirs.
    assert.equal(docker(user, 'compose'), 'the user compose');
  });

  test('works for a user without a config folder, and follows DOCKER_CONFIG to find it', () => {
    const v2 = join(dir, 'v2-only');
    plugin(v2, 'compose', 'v2.99.0', 'compose v2');
    const config = composeV2Config(v2, join(dir, 'layer-bare'), join(dir, 'no-such-folder'));
    assert.equal(docker(config, 'compose'), 'compose v2');
    assert.equal(docker(config, 'context', 'show'), 'default');
    assert.equal(userDockerConfig({ DOCKER_CONFIG: '/somewhere' }), '/somewhere');
    assert.match(userDockerConfig({}), /[/\\]\.docker$/);
  });
});
