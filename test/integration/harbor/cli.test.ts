/** `hud-studio run TASK_DIR`: bad task.toml files get located errors (never a crash); good ones print the usual JSON */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { cli } from '../cli/cliHarness';
import { HARBOR_FIXTURES, TRACE_DIR, assertNothingLeft } from './support';

const BAD: [string, number, RegExp][] = [
  ['syntax-error', 8, /TOML syntax error: this string is never closed \(fix: add the closing quote/],
  [
    'wrong-types',
    4,
    /\[agent\.timeout_sec\]: agent\.timeout_sec must be a number, not the string "ten minutes" \(fix: write agent\.timeout_sec as a number\)/,
  ],
  ['unknown-network', 4, /unknown network mode "intranet"; valid modes are "public", "no-network", "allowlist"/],
  [
    'separate-without-dockerfile',
    4,
    /tests\/Dockerfile is missing \(fix: a separate verifier is built from tests\/Dockerfile/,
  ],
];

for (const [name, line, message] of BAD) {
  test(`run bad/${name}: a located error, exit code 1`, async () => {
    const r = await cli(['run', join(HARBOR_FIXTURES, 'bad', name), '--agent', 'oracle', '--trace-dir', TRACE_DIR]);
    assert.equal(r.code, 1, r.stderr);
    assert.ok(r.stderr.includes(`${join(HARBOR_FIXTURES, 'bad', name, 'task.toml')}:${line}:`), r.stderr);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });
}

test('run bad/unknown-network --json: the error is in the JSON', async () => {
  const r = await cli(['run', join(HARBOR_FIXTURES, 'bad', 'unknown-network'), '--json', '--trace-dir', TRACE_DIR]);
  assert.equal(r.code, 1);
  const json = JSON.parse(r.stdout);
  assert.equal(json.status, 'error');
  assert.match(json.error.message, /task\.toml:4:1 \[environment\.network_mode\]: .*intranet/);
});

test('run TASK_DIR --agent oracle --json prints the same shape as env.py tasks', async () => {
  const r = await cli([
    'run',
    join(HARBOR_FIXTURES, 'shared-basic'),
    '--agent',
    'oracle',
    '--json',
    '--trace-dir',
    TRACE_DIR,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.status, 'completed');
  assert.equal(json.reward, 1);
  assert.deepEqual(
    json.phases.map((p: { name: string; reused: boolean }) => [p.name, p.reused]),
    [
      ['actor', false],
      ['verifier', true],
    ],
  );
  assert.equal(json.error, null);
  assert.match(json.trace, /\.hudtrace\.json$/);
  await assertNothingLeft(readTrace(json.trace).rolloutId);
});

test('--runtime local is refused for Harbor tasks with a fix', async () => {
  const r = await cli(['run', join(HARBOR_FIXTURES, 'shared-basic'), '--runtime', 'local', '--trace-dir', TRACE_DIR]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /Harbor tasks run in Docker/);
});
