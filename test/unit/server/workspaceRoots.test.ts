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
});
