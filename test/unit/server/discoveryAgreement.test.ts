/**
 * Every environment file this repository ships (the example, the conformance
 * environments, the fixtures) that the bundled runtime can import: the
 * static index lists the same tasks as the runtime's discovery, with the
 * same templates and verifiers. A module that does not import is left out
 * (its failure is the fixture's point); enough must remain for the
 * comparison to mean something.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { Analyzer } from '../../../server/src/analysis/analyzer';
import { listIndexableFiles, readFiles } from '../../../server/src/analysis/scan';
import { byRef, discoverFile, indexRowOf, rowsOf } from './discovery';

const REPO = join(__dirname, '..', '..', '..');
const FOLDERS = [
  'examples',
  'test/conformance/envs',
  'test/fixtures/python',
  'test/fixtures/docker',
  'test/fixtures/workspaces',
];

function envFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/env\.py$/.test(e.name)) out.push(p);
    }
  };
  for (const f of FOLDERS) walk(join(REPO, f));
  return out.sort();
}

test('the index lists what discovery finds in every env file of the repository that imports', async () => {
  let compared = 0;
  let tasks = 0;
  for (const file of envFiles()) {
    // The folder is the workspace, and discovery runs from it, so sibling modules import as in a project.
    const root = dirname(file);
    const report = discoverFile(basename(file), root);
    if (report.error) continue;
    const analyzer = await Analyzer.create({ roots: [root] });
    try {
      analyzer.setFiles(await readFiles(await listIndexableFiles([root])));
      const prefix = `${relative(root, file)}::`;
      const indexed = analyzer.workspace
        .index()
        .tasks.filter((t) => t.ref.startsWith(prefix))
        .map(indexRowOf);
      assert.deepEqual(byRef(indexed), byRef(rowsOf(report)), relative(REPO, file));
    } finally {
      analyzer.dispose();
    }
    compared++;
    tasks += report.tasks.length;
  }
  assert.ok(compared >= 15 && tasks >= 30, `compared ${compared} files and ${tasks} tasks`);
});
