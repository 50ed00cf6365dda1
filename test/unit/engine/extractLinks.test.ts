/**
 * What a container's archive can make the host's extraction write
 * (docs/harbor.md, "What the agent cannot forge"): the agent chose every
 * name in it, so no name it plants may turn a write onto a host file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tar from 'tar-stream';
import { extractTar } from '../../../client/src/engine/docker/tar';

test("links under the names of the extraction's own partial files do not take a file's bytes", async () => {
  const victim = join(mkdtempSync(join(tmpdir(), 'hs-extract-victim-')), 'bashrc');
  writeFileSync(victim, 'original\n');
  const dir = mkdtempSync(join(tmpdir(), 'hs-extract-links-'));
  const pack = tar.pack();
  // The name of the partial file an extraction in this process would write first; an agent guesses the number.
  pack.entry({ name: `answer.txt.hud-studio-partial-${process.pid}`, type: 'symlink', linkname: victim });
  pack.entry({ name: 'answer.txt' }, 'the agent wrote this\n');
  pack.finalize();
  await extractTar(pack, dir);
  assert.equal(readFileSync(victim, 'utf8'), 'original\n');
  assert.equal(readFileSync(join(dir, 'answer.txt'), 'utf8'), 'the agent wrote this\n');
  assert.deepEqual(readdirSync(dir).sort(), ['answer.txt', `answer.txt.hud-studio-partial-${process.pid}`]);
});
