/**
 * Workspace folders changed under an index that holds files already
 * (Workspace.setRoots): relative paths, each template's environment (its
 * key) and every link follow the new folders, both ways.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Analyzer } from '../../../server/src/analysis/analyzer';

const ENV = `from hud import Environment
from shared_env import env


@env.template(id="solve")
async def solve(level: int = 1):
    answer = yield "go"
    yield 1.0


t = solve(level=2)
`;

async function indexed(): Promise<Analyzer> {
  const a = await Analyzer.create({ roots: ['/ws/app'], host: { exists: () => false } });
  a.setFiles([
    ['/ws/app/env.py', ENV],
    // The environment lives in a folder that is not (yet) a workspace folder.
    ['/ws/lib/shared_env.py', 'from hud import Environment\n\nenv = Environment("shared")\n'],
    ['/ws/app/tasks.json', JSON.stringify([{ env: 'shared', id: 'solve', args: { level: 3 } }])],
  ]);
  return a;
}

const templateEnvs = (a: Analyzer) => a.workspace.index().templates.map((t) => t.env);
const rowTemplate = (a: Analyzer) => a.workspace.index().tasks.find((t) => t.ref === 'tasks.json::0')?.templateUri;

describe('workspace folders changed under a built index', () => {
  it('an added folder resolves the environment a template imports, re-keys it, and links rows to it', async () => {
    const a = await indexed();
    // Unresolved, the environment is named after its variable; the JSON row finds no template "shared/solve".
    assert.deepEqual(templateEnvs(a), ['env']);
    assert.equal(rowTemplate(a), undefined);
    assert.equal(a.workspace.relOf('/ws/lib/shared_env.py'), '/ws/lib/shared_env.py');

    const affected = a.setRoots(['/ws/app', '/ws/lib']);
    assert.deepEqual([...affected].sort(), ['/ws/app/env.py', '/ws/app/tasks.json', '/ws/lib/shared_env.py']);
    assert.deepEqual(templateEnvs(a), ['shared']);
    assert.equal(rowTemplate(a), 'file:///ws/app/env.py');
    assert.equal(a.workspace.relOf('/ws/lib/shared_env.py'), 'shared_env.py');
    assert.deepEqual(a.workspace.roots, ['/ws/app', '/ws/lib']);
  });

  it('removing the folder again undoes all of it', async () => {
    const a = await indexed();
    a.setRoots(['/ws/app', '/ws/lib']);
    const before = a.workspace.index().version;
    a.setRoots(['/ws/app']);
    assert.deepEqual(templateEnvs(a), ['env']);
    assert.equal(rowTemplate(a), undefined);
    assert.equal(a.workspace.relOf('/ws/lib/shared_env.py'), '/ws/lib/shared_env.py');
    // Every file's part of the index changed: the extension's replica asks for all of them (indexSince).
    const delta = a.workspace.indexSince(before, a.workspace.epoch);
    assert.equal(delta.files.length, 3);
  });

  it("a removed folder's files leave in the pass that links the rest again: every file is linked once", async () => {
    const a = await indexed();
    a.setRoots(['/ws/app', '/ws/lib']);
    const before = a.workspace.index().version;
    const affected = a.setRoots(['/ws/app'], ['/ws/lib/shared_env.py']);
    // One link of the workspace moves the version on once; a removal per file linked its readers each time.
    assert.equal(a.workspace.index().version, before + 1);
    assert.ok(affected.has('/ws/lib/shared_env.py'));
    assert.equal(a.workspace.has('/ws/lib/shared_env.py'), false);
    assert.deepEqual(templateEnvs(a), ['env']);
    assert.equal(rowTemplate(a), undefined);
    const delta = a.workspace.indexSince(before, a.workspace.epoch);
    assert.deepEqual(delta.removed, ['/ws/lib/shared_env.py']);
    assert.equal(delta.files.length, 2);
  });

  it("a deleted folder's files go in one batch, its readers linked again once", async () => {
    const a = await indexed();
    a.setRoots(['/ws/app', '/ws/lib']);
    a.setFiles([['/ws/lib/notes.py', 'x = 1\n']]);
    const before = a.workspace.index().version;
    const affected = a.deleteFiles(['/ws/lib/shared_env.py', '/ws/lib/notes.py']);
    assert.equal(a.workspace.index().version, before + 1);
    assert.deepEqual([...affected].sort(), [
      '/ws/app/env.py',
      '/ws/app/tasks.json',
      '/ws/lib/notes.py',
      '/ws/lib/shared_env.py',
    ]);
    assert.deepEqual(templateEnvs(a), ['env']);
    const delta = a.workspace.indexSince(before, a.workspace.epoch);
    assert.deepEqual([...delta.removed].sort(), ['/ws/lib/notes.py', '/ws/lib/shared_env.py']);
    // A removal nothing reads is still a change a client is told of.
    const v = a.workspace.index().version;
    a.setFiles([['/ws/app/alone.py', 'y = 2\n']]);
    const w = a.workspace.index().version;
    a.deleteFiles(['/ws/app/alone.py']);
    assert.ok(a.workspace.index().version > w && w > v);
    assert.deepEqual(a.workspace.indexSince(w, a.workspace.epoch).removed, ['/ws/app/alone.py']);
  });
});
