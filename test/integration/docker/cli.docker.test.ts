import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { LABELS } from '../../../client/src/engine/docker/types';
import { readTrace } from '../../../client/src/engine/trace/store';
import { exitOf, spawnCli } from '../cli/cliHarness';
import { FIXTURES } from '../engine-local/rules';
import { containersWith, dockerReady, tempDir } from './support';

before(dockerReady);

test('Ctrl-C of the CLI during a Docker rollout: exit 130, trace cancelled, no container of that process left', async () => {
  const dir = tempDir('cli-sigint');
  const child = spawnCli([
    'run',
    `${FIXTURES.twoEnv}::task`,
    '--command',
    'sleep 60; echo secret',
    '--runtime',
    'docker',
    '--trace-dir',
    dir,
  ]);
  const done = exitOf(child);
  const owner = { [LABELS.ownerPid]: String(child.pid) };
  let seen = '';
  await new Promise<void>((resolve) =>
    child.stdout!.on('data', (t: Buffer) => {
      seen += t.toString();
      if (seen.includes('actor prompt: completed')) resolve();
    }),
  );
  const running = await containersWith(owner);
  assert.equal(running.length, 1, 'the actor container runs while the agent works');
  child.kill('SIGINT');
  const r = await done;
  assert.equal(r.code, 130, r.stderr);
  const files = readdirSync(dir).filter((f) => f.endsWith('.hudtrace.json'));
  assert.equal(files.length, 1);
  const trace = readTrace(join(dir, files[0]!));
  assert.equal(trace.status, 'cancelled');
  assert.equal(trace.phases[0]!.substrate!.id, running[0]);
  assert.deepEqual(await containersWith(owner), [], 'the CLI removed its container before exiting');
});
