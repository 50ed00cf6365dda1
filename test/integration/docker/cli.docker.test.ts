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

test('Ctrl-C of the CLI during a two-container Docker rollout: exit 130, trace cancelled, no container of that process left', async () => {
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
  // The verifier's environment is another container, made while the agent works (docs/engine.md): the CLI's
  // provider (Docker behind the compose switch) must say its substrates are isolated for that to happen.
  const actor = await containersWith({ ...owner, [LABELS.phase]: 'actor' });
  assert.equal(actor.length, 1, 'the actor container runs while the agent works');
  let verifier: string[] = [];
  for (const end = Date.now() + 60_000; verifier.length === 0 && Date.now() < end;) {
    verifier = await containersWith({ ...owner, [LABELS.phase]: 'verifier' });
    if (verifier.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(verifier.length, 1, "the verifier's container is made while the agent still works");
  child.kill('SIGINT');
  const r = await done;
  assert.equal(r.code, 130, r.stderr);
  const files = readdirSync(dir).filter((f) => f.endsWith('.hudtrace.json'));
  assert.equal(files.length, 1);
  const trace = readTrace(join(dir, files[0]!));
  assert.equal(trace.status, 'cancelled');
  assert.equal(trace.phases[0]!.substrate!.id, actor[0]);
  assert.deepEqual(await containersWith(owner), [], 'the CLI removed its containers before exiting');
});
