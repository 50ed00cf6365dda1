import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LineMap } from '../../../server/src/analysis/lines';
import { CodeReader } from '../../../server/src/analysis/pyScan';
import { readBody } from '../../../server/src/analysis/templateBody';
import { createPythonParser } from '../../../server/src/analysis/treeSitter';

/** What the reader says at each `^` of `marked` (the marks removed), asked in order. */
function answers(marked: string): (boolean | undefined)[] {
  const offsets: number[] = [];
  let text = '';
  for (const ch of marked) {
    if (ch === '^') offsets.push(text.length);
    else text += ch;
  }
  const reader = new CodeReader(text, 0);
  return offsets.map((at) => reader.isCode(at));
}

describe('telling code from text without the syntax tree', () => {
  it('code, strings and comments', () => {
    assert.deepEqual(answers('^x = "a^b" # c^d\n^y'), [true, false, false, true]);
    assert.deepEqual(answers('"""a\n^b""" ^c'), [false, true]);
    assert.deepEqual(answers("'it\\'s ^x' ^y"), [false, true]);
    assert.deepEqual(answers('r"\\"^x" ^y'), [false, true]);
    // A string or comment opening exactly at the offset: its opening is code.
    assert.deepEqual(answers('x[^"k"] ^# c'), [true, true]);
  });

  it('gives no answer inside the fields of an f-string, which are code, and reads on past one it can delimit', () => {
    assert.deepEqual(answers('f"{^x}" ^y'), [undefined, true]);
    // Its literal text, doubled braces included, is text.
    assert.deepEqual(answers("rf'{{^}}' ^y"), [false, true]);
    assert.deepEqual(answers('f"a ^for {x} ^b {y:>{^w}}" ^y'), [false, false, undefined, true]);
    assert.deepEqual(answers("F'{a:{w}}' ^y"), [true]);
  });

  it('gives up past an f-string whose field holds its own quote (Python 3.12 allows it), not the other one', () => {
    assert.deepEqual(answers('f"{d["k"]}" ^y'), [undefined]);
    // A string of the other quote in a field is read whole, braces and all.
    assert.deepEqual(answers('f"{d[\'k\']}" ^y'), [true]);
    assert.deepEqual(answers('f"{\'}\'}" ^y'), [true]);
    // In a triple-quoted f-string, a field may hold strings of either quote.
    assert.deepEqual(answers('f"""{d["k"]}""" ^y'), [true]);
    // A quote as a format spec's fill character opens no string: not vouched for.
    assert.deepEqual(answers('f"{x:\'>10}" ^y'), [undefined]);
  });

  it('gives no answer for an unclosed string or an offset before one asked earlier', () => {
    assert.deepEqual(answers('"abc\n^x'), [undefined]);
    const reader = new CodeReader('abc def', 0);
    assert.equal(reader.isCode(5), true);
    assert.equal(reader.isCode(2), undefined);
  });

  it("reads a template's yields and key reads as the syntax tree does", async () => {
    const parser = await createPythonParser();
    const bodies = [
      'answer = yield "go"  # yield here is text\n    yield {"score": 1.0}',
      '"""Docstring that says yield twice: yield."""\n    r = yield f"level {level}: yield"\n    s = "yield"\n    yield 1.0 if r["a"] and r.get(\'b\') else 0.0',
      'r = yield \'\'\'multi\n    line yield\'\'\'\n    # r["commented"]\n    t = "r[\'quoted\']"\n    yield {"score": float(r[r"raw"] == 1), "x": f"{r[\'in_field\']}"}',
      'r = yield "a"\n    msg = f"{(yield)}"\n    yield {"score": 0.5, "k": r["k"]}',
      // "for" as text (an f-string's literal part, a comment) and as code: a loop, and a nested scope.
      'r = yield f"go for {level} in a loop"\n    # for each\n    yield {"score": 1.0, "x": r["x"]}',
      'r = yield "a"\n    for k in r:\n        yield 0.5\n    yield {"score": 0.0}',
      'r = yield "a"\n    def inner():\n        yield "not the template\'s"\n    yield {"score": 1.0}',
      'r = yield f"{[x for x in (1, 2)]} yield"\n    yield {"score": 1.0}',
      "r = yield 'it\\'s'\n    x = r[\"a\"]  # r['b']\n    yield x",
    ];
    try {
      for (const body of bodies) {
        const text = `from hud import Environment\nenv = Environment("e")\n\n@env.template()\nasync def t(level: int = 1):\n    ${body}\n`;
        const tree = parser.parse(text)!;
        try {
          assert.equal(tree.rootNode.hasError, false, body);
          const defStart = text.indexOf('async def');
          const bodyFrom = text.indexOf(')', defStart);
          const def = { start: defStart, end: text.length };
          const read = (errorFree: boolean) =>
            readBody(tree.rootNode, text, new LineMap(text), def, bodyFrom, errorFree, {});
          const fromText = read(true);
          assert.deepEqual(fromText, read(false), body);
          assert.ok(fromText.yieldCount >= 2, body);
        } finally {
          tree.delete();
        }
      }
    } finally {
      parser.delete();
    }
  });
});
