/**
 * A template annotation that names nothing when the template registers
 * fails the module's import (the SDK evaluates the annotations then). Each
 * case is also imported by the bundled runtime: the server reports
 * `template-annotation-unresolved` exactly when that import fails with
 * NameError, and names the right name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { annotationNames } from '../../../server/src/analysis/annotations';
import { discover } from './discovery';
import { workspace } from './helpers';

function module(header: string, signature: string, footer = '', returns = ''): string {
  return [
    header,
    'from hud import Environment',
    '',
    'env = Environment("annotations")',
    '',
    '',
    '@env.template()',
    `async def priced(${signature})${returns}:`,
    '    answer = yield "Price it."',
    '    yield 1.0',
    footer,
    '',
  ].join('\n');
}

const CASES: { name: string; source: string; flags: string[] }[] = [
  {
    name: 'imported only under TYPE_CHECKING, with the future import',
    source: module(
      'from __future__ import annotations\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decimal import Decimal',
      'amount: Decimal = 1',
    ),
    flags: ['Decimal'],
  },
  {
    name: 'imported only under typing.TYPE_CHECKING, inside a generic',
    source: module(
      'import typing\nfrom typing import Optional\nif typing.TYPE_CHECKING:\n    from decimal import Decimal',
      'amount: "Optional[Decimal]" = None',
    ),
    flags: ['Decimal'],
  },
  {
    name: 'defined below the template (a quoted forward reference)',
    source: module('', 'config: "Later" = None', '\nclass Later:\n    pass\n'),
    flags: ['Later'],
  },
  {
    name: 'a return annotation defined below',
    source: module('', 'level: int = 1', '\nclass Later:\n    pass\n', ' -> "Later"'),
    flags: ['Later'],
  },
  {
    name: 'bound in the else branch of TYPE_CHECKING',
    source: module(
      'from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from decimal import Decimal\nelse:\n    Decimal = float',
      'amount: "Decimal" = 1',
    ),
    flags: [],
  },
  {
    name: 'bound in a try/except import',
    source: module(
      'try:\n    from decimal import Decimal\nexcept ImportError:\n    Decimal = float',
      'amount: "Decimal" = 1',
    ),
    flags: [],
  },
  {
    name: 'builtins, typing names, dotted names and strings inside a generic',
    source: module(
      'import typing\nfrom typing import Literal, Optional',
      'a: int = 1, b: Optional[str] = None, c: typing.List[int] = [], d: Literal["x", "y"] = "x", e: dict[str, "Nowhere"] = {}',
    ),
    flags: [],
  },
  {
    name: 'a quoted annotation under the future import is just a str',
    source: module('from __future__ import annotations', 'config: "Later" = None', '\nclass Later:\n    pass\n'),
    flags: [],
  },
];

for (const c of CASES) {
  test(`annotations: ${c.name}`, async () => {
    const ws = await workspace({ 'env.py': c.source });
    const flagged = ws.problems('env.py').filter((p) => p.code === 'template-annotation-unresolved');
    assert.deepEqual(
      flagged.map((p) => /names (\w+)/.exec(p.message)?.[1]),
      c.flags,
      flagged.map((p) => p.message).join('\n'),
    );
    for (const p of flagged) assert.match(p.message, /NameError.*\(fix: import or define/);
    const report = discover(c.source);
    if (c.flags.length) assert.match(report.error?.message ?? 'imported', new RegExp(`NameError.*${c.flags[0]}`));
    else assert.equal(report.error, null, 'the runtime imports it');
  });
}

test('annotationNames: what an annotation looks up', () => {
  assert.deepEqual(annotationNames('int', false), ['int']);
  assert.deepEqual(annotationNames('typing.Optional[a.B]', false), ['typing', 'a']);
  assert.deepEqual(annotationNames('Literal["x", \'y\']', false), ['Literal']);
  assert.deepEqual(annotationNames('"Later"', false), ['Later']);
  assert.deepEqual(annotationNames('"Later"', true), []);
  assert.deepEqual(annotationNames('int | None', false), ['int', 'None']);
});
