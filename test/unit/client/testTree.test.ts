import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { testTree } from '../../../client/src/testTree';

const r = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 4 } });

describe('Testing item tree', () => {
  test('files hold tasks whose ids are task references with their ranges', () => {
    const files = testTree(
      {
        version: 1,
        environments: [],
        templates: [],
        tasks: [
          {
            ref: 'b/env.py::t',
            kind: 'hud',
            label: 't',
            uri: 'file:///w/b/env.py',
            range: r(9),
            env: 'e',
            templateId: 'solve',
          },
          {
            ref: 'b/env.py::suite[1]',
            kind: 'hud',
            label: 'suite[1]',
            uri: 'file:///w/b/env.py',
            range: r(12),
            verifier: { env: 'j', templateId: 'v', uri: 'file:///w/b/env.py', range: r(12), sameEnvironment: false },
          },
          {
            ref: 'a/task',
            kind: 'harbor',
            label: 'org/a',
            uri: 'file:///w/a/task/task.toml',
            range: r(0),
            environmentMode: 'shared',
          },
        ],
      },
      (u) => u.replace('file:///w/', ''),
    );
    assert.deepEqual(
      files.map((f) => [f.label, f.tasks.map((t) => t.id)]),
      [
        ['a/task/task.toml', ['a/task']],
        ['b/env.py', ['b/env.py::t', 'b/env.py::suite[1]']],
      ],
    );
    assert.deepEqual(files[1]!.tasks[0]!.range, r(9));
    assert.equal(files[1]!.tasks[0]!.description, 'e/solve');
    assert.equal(files[1]!.tasks[1]!.description, 'verifier j/v');
    assert.equal(files[0]!.tasks[0]!.description, 'verifier shared');
  });
});
