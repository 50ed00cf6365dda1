/**
 * The extension keeps a replica of the server's index and asks only for what
 * changed (IndexDeltaRequest, common/indexParts.ts): after any sequence of
 * edits, links through other modules, removals and a restarted server, the
 * replica must be the server's index entry for entry, while a delta carries
 * only the files whose part changed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { IndexReplica } from '../../../common/indexParts';
import { pathToUri } from '../../../server/src/analysis/paths';
import { IndexDeltaRequest } from '../../../common/lspMessages';
import { ENV_HEADER, py, workspace, type MemoryWorkspace } from './helpers';
import { REPO, startServer } from './lspClient';

const JUDGE =
  ENV_HEADER +
  py`

    @env.template()
    async def verify(expected: str):
        yield ""
        yield 1.0
  `;
const env = (n: number) =>
  ENV_HEADER.replace('"workspace"', `"workspace-${n}"`) +
  py`
    from judge import verify

    @env.template()
    async def solve(level: int):
        yield "go"
        yield 1.0

    task = solve(level=${n})
    task.verifier = verify(expected="x")
  `;

/** Brings the replica up to date and checks it against the server's whole index; returns the delta's files. */
function sync(ws: MemoryWorkspace, replica: IndexReplica): { full: boolean; files: string[]; removed: string[] } {
  const { since, epoch } = replica.next();
  const delta = ws.analyzer.workspace.indexSince(since, epoch);
  assert.deepEqual(replica.apply(delta), ws.analyzer.workspace.index());
  const rel = (p: string) => p.slice(ws.path('').length + 1);
  return { full: delta.full, files: delta.files.map((f) => f.rel).sort(), removed: delta.removed.map(rel) };
}

describe('the index replica (analysis)', () => {
  test('edits, links through another module, removals and a restart', async () => {
    const files: Record<string, string> = {
      'judge.py': JUDGE,
      'tasks.jsonl': '{"env": "workspace-1", "id": "solve", "args": {"level": 1}}\n',
    };
    for (let n = 1; n <= 5; n++) files[`env_${n}.py`] = env(n);
    const ws = await workspace(files);
    const replica = new IndexReplica();
    const first = sync(ws, replica);
    assert.equal(first.full, true);
    assert.equal(first.files.length, 7);
    assert.deepEqual(sync(ws, replica), { full: false, files: [], removed: [] }, 'nothing changed, nothing sent');

    // One file: only its part travels.
    ws.analyzer.setFile(ws.path('env_3.py'), env(3).replace('level=3', 'level=33'));
    assert.deepEqual(sync(ws, replica), { full: false, files: ['env_3.py'], removed: [] });

    // The judge's template renamed: every module whose verifier it was is linked again, and sent.
    ws.analyzer.setFile(ws.path('judge.py'), JUDGE.replace('expected', 'wanted'));
    const relinked = sync(ws, replica);
    assert.deepEqual(relinked.files, ['env_1.py', 'env_2.py', 'env_3.py', 'env_4.py', 'env_5.py', 'judge.py']);

    // An open document's edits, then a removal and a file that comes back.
    ws.analyzer.openDocument(ws.path('env_2.py'), env(2), 1);
    ws.analyzer.changeDocument(ws.path('env_2.py'), [{ text: env(2).replace('task =', 'renamed =') }], 2);
    ws.analyzer.deleteFile(ws.path('env_5.py'));
    assert.deepEqual(sync(ws, replica), { full: false, files: ['env_2.py'], removed: ['env_5.py'] });
    ws.analyzer.setFile(ws.path('env_5.py'), env(5));
    assert.deepEqual(sync(ws, replica), { full: false, files: ['env_5.py'], removed: [] });

    // A restarted server counts its versions from 0 again: the replica starts over.
    const restarted = await workspace(files);
    assert.equal(sync(restarted, replica).full, true);
  });
});

describe('the index replica over LSP (bundled server)', () => {
  test('the deltas the server sends rebuild the index it reports', async () => {
    const root = join(REPO, 'test', 'fixtures', 'workspaces', 'lsp-basic');
    const lsp = await startServer(root, 'bundled');
    try {
      const replica = new IndexReplica();
      const fetch = async () => {
        const delta = await lsp.conn.sendRequest(IndexDeltaRequest, replica.next());
        return { delta, index: replica.apply(delta) };
      };
      await lsp.eventually('the workspace indexed', async () => (await lsp.index()).tasks.length > 0);
      const first = await fetch();
      assert.equal(first.delta.full, true);
      assert.deepEqual(first.index, await lsp.index());
      const envPath = join(root, 'envs', 'env.py');
      const uri = pathToUri(envPath);
      const { readFileSync } = await import('node:fs');
      const text = readFileSync(envPath, 'utf8');
      await lsp.open(uri, text.replace('task = ', 'renamed_task = '), 1);
      await lsp.eventually('the renamed task', async () =>
        (await lsp.index()).tasks.some((t) => t.ref === 'envs/env.py::renamed_task'),
      );
      const second = await fetch();
      assert.equal(second.delta.full, false);
      // The module and what reads its templates (tasks.jsonl), not the rest (Harbor tasks, the judge).
      const sent = second.delta.files.map((f) => f.rel).sort();
      assert.ok(sent.includes('envs/env.py'), sent.join(', '));
      assert.ok(sent.length < first.delta.files.length / 2, `${sent.length} of ${first.delta.files.length} files sent`);
      assert.ok(!sent.some((r) => r.startsWith('harbor/')), sent.join(', '));
      assert.deepEqual(second.index, await lsp.index());
    } finally {
      await lsp.close();
    }
  });
});
