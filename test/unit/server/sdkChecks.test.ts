/**
 * `check` finds what the HUD SDK v6 rejects on import (docs/sdk-compatibility.md):
 * each case fires on the bad file and stays silent on its near miss.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SEVERITY } from '../../../server/src/analysis/diagnostics';
import { closestName } from '../../../server/src/analysis/names';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspace } from './helpers';

async function problemsOf(text: string): Promise<{ code: string; message: string; line: number; severity: string }[]> {
  const ws = await workspace({ 'env.py': text });
  return ws
    .problems('env.py')
    .map((p) => ({ code: p.code, message: p.message, line: p.range.start.line, severity: p.severity }));
}

const HEAD =
  'from hud import Environment\nfrom hud.graders import SubScore, combine, BashGrader\n\nenv = Environment("e")\n\n';

describe('check: what the SDK rejects', () => {
  test('severities', () => {
    assert.equal(SEVERITY['template-bare-decorator'], 'error');
    assert.equal(SEVERITY['hud-unknown-import'], 'error');
    assert.equal(SEVERITY['combine-no-positive-weight'], 'warning');
  });

  test('a bare @env.template is an error; @env.template() is not', async () => {
    const bare = await problemsOf(`${HEAD}@env.template\nasync def solve():\n    answer = yield "p"\n    yield 1.0\n`);
    const hit = bare.find((p) => p.code === 'template-bare-decorator');
    assert.ok(hit, JSON.stringify(bare));
    assert.equal(hit.line, 5);
    assert.match(hit.message, /write @env\.template\(\)/);
    const ok = await problemsOf(`${HEAD}@env.template()\nasync def solve():\n    answer = yield "p"\n    yield 1.0\n`);
    assert.deepEqual(
      ok.map((p) => p.code),
      [],
    );
    // Not an environment: someone else's decorator.
    const other = await problemsOf(
      `${HEAD}class T:\n    template = staticmethod(lambda f: f)\nt = T()\n@t.template\ndef x():\n    pass\n`,
    );
    assert.deepEqual(
      other.filter((p) => p.code === 'template-bare-decorator'),
      [],
    );
  });

  test('names hud does not export are errors with the closest name', async () => {
    const found = await problemsOf(
      'from hud import Enviroment, Taskset\nfrom hud.graders import (\n    SubScore,\n    combine_al,  # typo\n    EvaluationResult as ER,\n)\nfrom hud.eval import Task\nfrom hud.task import Task as T2\n',
    );
    const unknown = found.filter((p) => p.code === 'hud-unknown-import');
    assert.deepEqual(
      unknown.map((p) => [p.line, p.message.match(/"(\w+)"/g)]),
      [
        [0, ['"Enviroment"', '"Environment"']],
        [3, ['"combine_al"', '"combine_all"']],
      ],
    );
    assert.equal(closestName('zzzzzz', ['Environment']), undefined);
  });

  test('a submodule and a name a module binds for itself import fine; a misspelt name is not pointed at the latter', async () => {
    const found = await problemsOf(
      'from hud.eval import file_tracking as observer\nfrom hud.environment import Path, file_tracker\nfrom hud.environment import Pth\n',
    );
    assert.deepEqual(
      found
        .filter((p) => p.code === 'hud-unknown-import')
        .map((p) => [p.line, p.message.match(/"(\w+)"/g), /did you mean/.test(p.message)]),
      [[2, ['"Pth"'], false]],
    );
  });

  test('a combine() whose weights cannot be normalised is a warning; one positive weight is enough', async () => {
    const body = (args: string): string =>
      `${HEAD}@env.template()\nasync def solve():\n    answer = yield "p"\n    yield await combine(${args})\n`;
    const none = await problemsOf(body('SubScore(name="a", value=1.0, weight=0), BashGrader.grade(-0.5, command="x")'));
    const hit = none.find((p) => p.code === 'combine-no-positive-weight');
    assert.ok(hit, JSON.stringify(none));
    assert.equal(hit.severity, 'warning');
    for (const fine of [
      'SubScore(name="a", value=1.0)',
      'SubScore(name="a", value=1.0, weight=w), SubScore(name="b", value=0.0, weight=-1)',
      'BashGrader.grade(0.5, command="x")',
    ]) {
      assert.deepEqual(
        (await problemsOf(body(fine))).filter((p) => p.code === 'combine-no-positive-weight'),
        [],
        fine,
      );
    }
  });

  test('the combine() checks of one file read a bounded amount of text, so a flood of them cannot stall the server', async () => {
    const bad = (name: string) => `${name} = combine(SubScore(name="${name}", value=1.0, weight=0))\n`;
    // Each unclosed call is read to the end of the file: 1,000 of them read about 5 MB, past the file's budget.
    const text = `${HEAD}${bad('before')}${'combine(\n'.repeat(1000)}${bad('after')}`;
    const lines = text.split('\n');
    assert.deepEqual(
      (await problemsOf(text)).filter((p) => p.code === 'combine-no-positive-weight').map((p) => lines[p.line]),
      [bad('before').trimEnd()],
      'the call before the flood is checked, the one after it is not',
    );
    assert.equal(
      (await problemsOf(`${HEAD}${bad('before')}${'combine(\n'.repeat(10)}${bad('after')}`)).filter(
        (p) => p.code === 'combine-no-positive-weight',
      ).length,
      2,
      'a few unclosed calls leave the budget to the rest',
    );
  });

  test('the bundled example is clean', async () => {
    const text = readFileSync(join(__dirname, '..', '..', '..', 'examples', 'secret-verifier', 'env.py'), 'utf8');
    assert.deepEqual(
      (await problemsOf(text)).map((p) => p.code),
      [],
    );
  });
});
