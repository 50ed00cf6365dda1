/**
 * A template's key (its environment's name and its id), by which JSON task
 * rows and other files find it, when the environment is imported from
 * another module: the key follows that module in whatever order the files
 * arrive, and when it changes or goes away.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Analyzer } from '../../../server/src/analysis/analyzer';
import type { FileContent } from '../../../server/src/analysis/analyzer';

const ENV: [string, string] = [
  '/ws/env.py',
  `from hud import Environment
from shared_env import env


@env.template(id="solve")
async def solve(level: int = 1):
    answer = yield "go"
    yield 1.0


t = solve(level=2)
`,
];
const shared = (name: string): [string, string] => [
  '/ws/shared_env.py',
  `from hud import Environment\n\nenv = Environment("${name}")\n`,
];
const ROWS: [string, string] = [
  '/ws/tasks.json',
  JSON.stringify([
    { env: 'shared', id: 'solve', args: { level: 3 } },
    { env: 'common', id: 'solve', args: { level: 4 } },
  ]),
];

async function analyzer(...batches: [string, FileContent][][]): Promise<Analyzer> {
  const a = await Analyzer.create({ roots: ['/ws'], host: { exists: () => false } });
  for (const batch of batches) a.setFiles(batch);
  return a;
}

/** For each row of tasks.json, the environment it names and whether it found its template in env.py. */
function rows(a: Analyzer): [string | undefined, boolean][] {
  return a.workspace
    .index()
    .tasks.filter((t) => t.ref.startsWith('tasks.json'))
    .map((t) => [t.env, t.templateUri === 'file:///ws/env.py']);
}

const FOUND_SHARED: [string, boolean][] = [
  ['shared', true],
  ['common', false],
];

describe("a template's key when its environment is imported", () => {
  for (const [order, batches] of [
    ['the module after the template, in one batch', [[ENV, shared('shared'), ROWS]]],
    ['the module after the template, in a later batch', [[ENV, ROWS], [shared('shared')]]],
    ['the rows first, then the template, then the module', [[ROWS], [ENV], [shared('shared')]]],
    ['the module first', [[shared('shared')], [ENV, ROWS]]],
  ] as const) {
    it(`is the imported environment's name: ${order}`, async () => {
      const a = await analyzer(...batches.map((b) => [...b]));
      assert.deepEqual(
        a.workspace.index().templates.map((t) => t.env),
        ['shared'],
      );
      assert.deepEqual(rows(a), FOUND_SHARED);
    });
  }

  it('follows a rename of the environment in the imported module', async () => {
    const a = await analyzer([ENV, shared('shared'), ROWS]);
    const affected = a.setFile(...shared('common'));
    assert.ok(affected.has('/ws/tasks.json'), 'the rows are linked again');
    assert.deepEqual(rows(a), [
      ['shared', false],
      ['common', true],
    ]);
  });

  it('falls back to the variable when the module goes away, and comes back with it', async () => {
    const a = await analyzer([ENV, shared('shared'), ROWS]);
    a.deleteFile('/ws/shared_env.py');
    assert.deepEqual(
      a.workspace.index().templates.map((t) => t.env),
      ['env'],
    );
    assert.deepEqual(rows(a), [
      ['shared', false],
      ['common', false],
    ]);
    a.setFile(...shared('shared'));
    assert.deepEqual(rows(a), FOUND_SHARED);
  });
});
