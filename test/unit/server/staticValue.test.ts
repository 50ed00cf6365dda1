/**
 * The expressions the index evaluates without running the module
 * (server/src/analysis/staticValue.ts), each also evaluated by the real
 * python3: where the index gives a value, Python gives the same one; where
 * Python raises, the index gives none.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, test } from 'node:test';
import { evaluate, type PyValue, type ValueScope } from '../../../server/src/analysis/staticValue';
import { createPythonParser, type Parser } from '../../../server/src/analysis/treeSitter';

/** Names every expression below may read, in both evaluators. */
const NAMES = 'n = 3\nneg = -7\nw = "héllo"\nt = (1, "a", None)\nflag = True\nr = range(2, 12, 3)\n';
const KNOWN: Record<string, PyValue> = {
  n: { kind: 'int', value: 3n },
  neg: { kind: 'int', value: -7n },
  w: { kind: 'str', value: 'héllo' },
  t: {
    kind: 'tuple',
    items: [{ kind: 'int', value: 1n }, { kind: 'str', value: 'a' }, { kind: 'none' }],
  },
  flag: { kind: 'bool', value: true },
  r: { kind: 'range', start: 2n, stop: 12n, step: 3n },
};
const scope: ValueScope = {
  valueOf: (name) => KNOWN[name],
  lengthOf: (name) => (name === 'SIZED' ? 4 : undefined),
  binds: (name) => name === 'shadow',
  builtin: (name) => name !== 'shadow',
};

/** Evaluated the same by both. */
const AGREED = [
  '1 + 2 * 3',
  '7 // 2',
  '-7 // 2',
  '7 // -2',
  'neg % 3',
  '7 % -3',
  '2 ** 10',
  '(-1) ** 10**9 + (-1) ** 7 + 0 ** 0 + 0 ** 5',
  '1 << 70',
  '-5 >> 1',
  '~n',
  '-flag',
  'flag + flag',
  'True & False',
  '6 ^ 3',
  '0x1F + 0o17 + 0b101 + 1_000',
  'n == 3',
  'n != 3',
  '1 < n <= 3 < 4',
  '3 > n > 1',
  'True == 1',
  '"a" == 1',
  'None == 0',
  'None is None',
  'n is not None',
  'flag is True',
  '(1, 2) == (1, 2)',
  '(1, 2) == [1, 2]',
  '[1, [2]] == [1, [2]]',
  'n in (1, 2, 3)',
  'n not in [1, 2]',
  '"ll" in w',
  '"a" in t',
  'None in t',
  '5 in r',
  '6 in r',
  '11 in r',
  '"x" in r',
  '-1 in range(0, -5, -1)',
  'not n',
  'not ""',
  'n > 1 and w',
  'n < 1 and w',
  '0 or "fallback"',
  'n or undefined_name',
  'w if n else t',
  '"b" < "a"',
  '"😀" > "\uffff"',
  'w + "!"',
  '"ab" * 3',
  '2 * "ab"',
  '"ab" * -1',
  '(1,) + (2, 3)',
  '[1] + [2]',
  'len(w)',
  'len(t)',
  'len(r)',
  'len(range(10, 0, -3))',
  'range(5)',
  'bool(0) if False else 4',
  'len("😀")',
];

/** Python raises on these: the index must give no value. */
const RAISES = [
  '1 < "a"',
  'n // 0',
  'n % 0',
  '"a" in 1',
  '1 in "abc"',
  'None < 1',
  'range(1, 2, 0)',
  'len(n)',
  'undefined',
];

/** Python can evaluate these, but the index leaves them alone. */
const LEFT_ALONE = [
  '1 / 2',
  '1.5 + 1',
  'n is 3',
  '"a" "b"',
  '"\\n"',
  'f"{n}"',
  'b"x"',
  'abs(-1)',
  'range(n)[0]',
  't < (2,)',
  'r == range(2, 12, 3)',
  '2 ** -1',
  '3 ** 5000',
  '(x := 1)',
];

function pythonValues(exprs: readonly string[]): { value?: unknown; raises?: string }[] {
  const script = [
    'import json, sys',
    NAMES,
    'def plain(v):',
    '    if isinstance(v, range): return {"range": [v.start, v.stop, v.step]}',
    '    if isinstance(v, (tuple, list)): return {type(v).__name__: [plain(x) for x in v]}',
    '    if isinstance(v, bool): return {"bool": v}',
    '    if isinstance(v, int): return {"int": str(v)}',
    '    if v is None: return {"none": True}',
    '    if isinstance(v, str): return {"str": v}',
    '    return {"other": repr(v)}',
    'out = []',
    'for e in json.load(sys.stdin):',
    '    try: out.append({"value": plain(eval(e))})',
    '    except Exception as err: out.append({"raises": type(err).__name__})',
    'print(json.dumps(out))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(exprs), encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { value?: unknown; raises?: string }[];
}

function plain(v: PyValue): unknown {
  switch (v.kind) {
    case 'range':
      return { range: [Number(v.start), Number(v.stop), Number(v.step)] };
    case 'tuple':
    case 'list':
      return { [v.kind]: v.items.map(plain) };
    case 'bool':
      return { bool: v.value };
    case 'int':
      return { int: String(v.value) };
    case 'none':
      return { none: true };
    case 'str':
      return { str: v.value };
  }
}

let parser: Parser;
before(async () => {
  parser = await createPythonParser();
});

function ours(expr: string): unknown {
  const source = `x = ${expr}\n`;
  const tree = parser.parse(source)!;
  try {
    const node = tree.rootNode.descendantForIndex(4, 4 + expr.length);
    assert.ok(node && node.startIndex === 4 && node.endIndex === 4 + expr.length, expr);
    const v = evaluate(node, scope);
    return v && plain(v);
  } finally {
    tree.delete();
  }
}

describe('expressions evaluated without running the module, against python3', () => {
  test('the supported ones give what Python gives', () => {
    const expected = pythonValues(AGREED);
    for (const [i, expr] of AGREED.entries()) {
      assert.ok(expected[i]!.value !== undefined, `${expr}: python raised ${expected[i]!.raises}`);
      assert.deepEqual(ours(expr), expected[i]!.value, expr);
    }
  });

  test('where Python raises, there is no value', () => {
    const expected = pythonValues(RAISES);
    for (const [i, expr] of RAISES.entries()) {
      assert.ok(expected[i]!.raises, `${expr} should raise in python`);
      assert.equal(ours(expr), undefined, expr);
    }
  });

  test('floats, identity of numbers and strings, f-strings and other calls are left to Python', () => {
    const expected = pythonValues(LEFT_ALONE);
    for (const [i, expr] of LEFT_ALONE.entries()) {
      assert.ok(expected[i]!.value !== undefined, `${expr}: python raised ${expected[i]!.raises}`);
      assert.equal(ours(expr), undefined, expr);
    }
  });

  test("len of a name whose items are not known but whose length is, unless the expression's own scope binds it", () => {
    assert.deepEqual(ours('len(SIZED) * 2'), { int: '8' });
    assert.equal(ours('len(shadow)'), undefined);
    assert.equal(ours('range(3) if shadow else 1'), undefined);
  });
});
