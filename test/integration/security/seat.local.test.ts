/**
 * The local runtime's agent seat (docs/security.md, "Local runtime"): what a
 * harness copies into the agent's workspace is put in place with the agent's
 * own rights, inside its sandbox, so a link the agent left on the way cannot
 * turn the copy into a write of the host user's elsewhere. Missing
 * bubblewrap is a failure.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { LocalProvider, type LocalSubstrate } from '../../../client/src/engine/providers/local';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import type { AgentSeat } from '../../../client/src/engine/providers/provider';
import { FIXTURES, scratchDir } from '../engine-local/rules';

let substrate: LocalSubstrate;
let seat: AgentSeat;

before(async () => {
  assert.ok(bubblewrap(), 'the local runtime needs bubblewrap for these tests (apt-get install -y bubblewrap)');
  substrate = (await new LocalProvider().acquire(
    { envFile: FIXTURES.sameEnv, envDir: dirname(FIXTURES.sameEnv), runtimeConfig: null },
    { rolloutId: 'seatcopy', phase: 'actor', log: () => undefined },
  )) as LocalSubstrate;
  seat = substrate.agentSeat();
  assert.equal(seat.privileged, false, 'the agent sits in a sandbox');
});

after(() => substrate.release());

function hostFile(name: string, text: string): string {
  const file = join(scratchDir('hs-seat-copy-'), name);
  writeFileSync(file, text);
  return file;
}

async function agent(command: string): Promise<void> {
  const res = await seat.exec(['sh', '-c', command]);
  assert.equal(res.exitCode, 0, res.stderr);
}

test("a copy into the agent's workspace lands there, nested folders and links kept", async () => {
  const folder = scratchDir('hs-seat-folder-');
  mkdirSync(join(folder, 'data', 'deep'), { recursive: true });
  writeFileSync(join(folder, 'data', 'deep', 'a.txt'), 'nested');
  symlinkSync('deep/a.txt', join(folder, 'data', 'link'));
  await seat.copyIn(join(folder, 'data'), 'inbox');
  await seat.copyIn(hostFile('note.txt', 'hello'), 'inbox');
  const read = await seat.exec(['sh', '-c', 'cat inbox/note.txt inbox/data/deep/a.txt inbox/data/link']);
  assert.deepEqual([read.exitCode, read.stdout], [0, 'hellonestednested']);
  assert.equal(readlinkSync(join(seat.workdir, 'inbox', 'data', 'link')), 'deep/a.txt', 'the link is copied as a link');

  // A source named relative to the engine's working folder, and one that does not exist.
  await seat.copyIn(relative(process.cwd(), hostFile('rel.txt', 'relative')), 'inbox');
  assert.equal(readFileSync(join(seat.workdir, 'inbox', 'rel.txt'), 'utf8'), 'relative');
  await assert.rejects(
    seat.copyIn('/nonexistent/hud-studio-source', 'inbox'),
    /cannot copy \/nonexistent\/hud-studio-source: it does not exist/,
  );
});

test("a link the agent left on the way leads the copy nowhere outside its sandbox's reach", async () => {
  // A folder of the host user's that the agent's sandbox shows read-only (or not at all).
  const outside = scratchDir('hs-seat-outside-');
  await agent(`ln -s '${outside}' drop`);
  await assert.rejects(seat.copyIn(hostFile('payload.txt', 'planted'), 'drop'), (err: Error) => {
    assert.match(err.message, /copying into .*drop with the agent's rights failed/);
    return true;
  });
  assert.deepEqual(readdirSync(outside), [], 'nothing was written through the link');

  // The same through a link to one file, and through a link deeper down the target path.
  const victim = join(scratchDir('hs-seat-victim-'), 'config.txt');
  writeFileSync(victim, 'original');
  await agent(`mkdir -p box && ln -s '${victim}' box/payload.txt`);
  await assert.rejects(seat.copyIn(hostFile('payload.txt', 'planted'), 'box'));
  assert.equal(readFileSync(victim, 'utf8'), 'original');
  await agent(`ln -s '${outside}' up && mkdir -p up2`);
  await assert.rejects(seat.copyIn(hostFile('payload.txt', 'planted'), 'up/below'));
  assert.equal(existsSync(join(outside, 'below')), false);
});
