/**
 * Activation loads dist/extension.js only; dockerode, ssh2 and the BuildKit
 * gRPC code belong to dist/engine.js, which the first run loads. Checked on
 * the bundles the build wrote (scripts/test.mjs builds before the unit layer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIST = join(__dirname, '..', '..', '..', 'dist');
/** Text that only each library's own code contains (it survives minification). */
const ENGINE_ONLY: Record<string, string> = {
  'docker-modem (dockerode)': 'DOCKER_CERT_PATH',
  dockerode: '/containers/create',
  ssh2: 'ssh-ed25519',
  '@grpc/grpc-js': 'grpc-status',
};

test('the extension bundle leaves the engine out; the engine bundle has it', () => {
  for (const name of ['extension.js', 'engine.js']) {
    assert.ok(existsSync(join(DIST, name)), `dist/${name} is missing: run node scripts/build.mjs`);
  }
  const extension = readFileSync(join(DIST, 'extension.js'), 'utf8');
  const engine = readFileSync(join(DIST, 'engine.js'), 'utf8');
  for (const [library, marker] of Object.entries(ENGINE_ONLY)) {
    assert.ok(!extension.includes(marker), `${library} is in dist/extension.js: activation would load it`);
    assert.ok(engine.includes(marker), `${library} is missing from dist/engine.js (is the marker still right?)`);
  }
  assert.match(extension, /engine\.js/, 'the extension loads the engine bundle by name');
});
