/**
 * `check` reports files Python could not import (a syntax error, a NUL byte,
 * bytes that are not UTF-8, brackets or indentation nested past CPython's
 * limits) and malformed rows of task files. Each case is confirmed against
 * the real python3: it must refuse to compile the same bytes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { check } from '../../../client/src/cli/check';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-importable-'));
after(() => rmSync(SCRATCH, { recursive: true, force: true }));

const HEADER = 'from hud import Environment\nenv = Environment("e")\n\n';

function pythonCompiles(path: string): boolean {
  const r = spawnSync('python3', [
    '-c',
    'import sys; compile(open(sys.argv[1], "rb").read(), sys.argv[1], "exec")',
    path,
  ]);
  return r.status === 0;
}

function nestedIndent(levels: number): string {
  let out = '';
  for (let i = 0; i < levels; i++) out += `${' '.repeat(i)}if True:\n`;
  return `${out}${' '.repeat(levels)}pass\n`;
}

const cases: [string, Buffer, RegExp, number][] = [
  ['syntax', Buffer.from(`${HEADER}@env.template()\nasync def t(:\n    yield 1\n`), /syntax error/, 5],
  ['nul', Buffer.concat([Buffer.from(HEADER), Buffer.from('x = 1\0\n')]), /NUL byte/, 4],
  [
    'latin1',
    Buffer.concat([Buffer.from(HEADER), Buffer.from('name = "caf'), Buffer.from([0xe9]), Buffer.from('"\n')]),
    /not valid UTF-8/,
    4,
  ],
  ['brackets', Buffer.from(`${HEADER}x = ${'('.repeat(250)}1${')'.repeat(250)}\n`), /brackets nest 200 levels deep/, 4],
  ['indent', Buffer.from(`${HEADER}${nestedIndent(120)}`), /indentation nests 100 levels deep/, 0],
];

for (const [name, bytes, message, line] of cases) {
  test(`check reports an env.py Python cannot import: ${name}`, async () => {
    const dir = mkdtempSync(join(SCRATCH, `${name}-`));
    const file = join(dir, 'env.py');
    writeFileSync(file, bytes);
    assert.equal(pythonCompiles(file), false, 'python3 refuses these bytes too');
    const findings = (await check([dir], dir)).filter((f) => f.code === 'python-unimportable');
    assert.equal(findings.length, 1, JSON.stringify(findings));
    assert.equal(findings[0]!.severity, 'error');
    assert.match(findings[0]!.message, message);
    assert.match(findings[0]!.message, /fix/);
    if (line) assert.equal(findings[0]!.line, line);
  });
}

test('a module Python imports fine gets no such finding', async () => {
  const dir = mkdtempSync(join(SCRATCH, 'fine-'));
  writeFileSync(
    join(dir, 'env.py'),
    `${HEADER}x = ${'('.repeat(150)}1${')'.repeat(150)}\ns = "caf\u00e9 ( [ {"\n# ((((\n`,
  );
  assert.equal(pythonCompiles(join(dir, 'env.py')), true);
  assert.deepEqual(
    (await check([dir], dir)).filter((f) => f.code === 'python-unimportable'),
    [],
  );
});

test('check reports malformed rows of a task file, each on its line', async () => {
  const dir = mkdtempSync(join(SCRATCH, 'jsonl-'));
  writeFileSync(
    join(dir, 'env.py'),
    `${HEADER}@env.template()\nasync def t(x: int = 0):\n    yield "p"\n    yield 1.0\n`,
  );
  writeFileSync(
    join(dir, 'tasks.jsonl'),
    '{"env": "e", "id": "t", "args": {"x": 1}}\n{"env": "e", "id": \n{"id": "t"}\n',
  );
  const findings = (await check([dir], dir)).filter((f) => f.file === 'tasks.jsonl');
  assert.deepEqual(
    findings.map((f) => [f.line, f.code]),
    [
      [2, 'task-file-malformed'],
      [3, 'task-file-malformed'],
    ],
  );
  assert.match(findings[0]!.message, /row 1 is not valid JSON/);
  assert.match(findings[1]!.message, /row 2 is not a task/);
});
