import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { artifactEntriesIn } from '../../../client/src/engine/harbor/artifactShadowing';

/** Host copies of three artifacts: the file /app/answer.txt, the folder /app/out, and the folder /srv. */
function copies() {
  const root = mkdtempSync(join(tmpdir(), 'hs-artifact-entries-'));
  writeFileSync(join(root, 'answer.txt'), '42\n');
  mkdirSync(join(root, 'out', 'pkg'), { recursive: true });
  writeFileSync(join(root, 'out', 'json.py'), '');
  writeFileSync(join(root, 'out', 'pkg', '__init__.py'), '');
  mkdirSync(join(root, 'srv', 'app', 'deep'), { recursive: true });
  writeFileSync(join(root, 'srv', 'app', 'os.py'), '');
  return [
    { containerPath: '/app/answer.txt', hostPath: join(root, 'answer.txt') },
    { containerPath: '/app/out/', hostPath: join(root, 'out') },
    { containerPath: '/srv', hostPath: join(root, 'srv') },
  ];
}

test("what the artifacts put directly in the tests' folder: a file beside it, a folder's entries, a folder above", () => {
  const artifacts = copies();
  assert.deepEqual([...artifactEntriesIn('/app', artifacts).keys()], ['/app/answer.txt', '/app/out']);
  assert.deepEqual([...artifactEntriesIn('/app/out', artifacts).keys()], ['/app/out/json.py', '/app/out/pkg']);
  assert.deepEqual([...artifactEntriesIn('/srv/app/', artifacts).keys()], ['/srv/app/deep', '/srv/app/os.py']);
  assert.equal(
    artifactEntriesIn('/app/out', artifacts).get('/app/out/json.py'),
    join(artifacts[1]!.hostPath, 'json.py'),
  );
});

test('nothing lands in a folder no artifact is in, above, or below', () => {
  const artifacts = copies();
  assert.deepEqual([...artifactEntriesIn('/check', artifacts).keys()], []);
  assert.deepEqual([...artifactEntriesIn('/srv/elsewhere', artifacts).keys()], []);
  assert.deepEqual([...artifactEntriesIn('/', artifacts).keys()], ['/srv']);
});
