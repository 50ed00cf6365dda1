import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { moduleStatementStarts } from '../../../server/src/analysis/moduleLayout';
import { CodeReader, expressionEnd, matchBracket, scanTo, skipString } from '../../../server/src/analysis/pyScan';
import { dropMap, mapOf } from '../../../server/src/analysis/textMap';
import { pythonFiles, REPO } from './helpers';
import { createPythonParser, type Parser } from '../../../server/src/analysis/treeSitter';

/** Every answer the scanners give on `text` at the offsets worth asking, read from the text or from the map. */
function answers(text: string, mapped: boolean): string[] {
  dropMap();
  if (mapped) {
    moduleStatementStarts(text);
    assert.ok(mapOf(text), 'the layout maps a text it reads whole');
  }
  const out: string[] = [];
  const reader = new CodeReader(text, 0);
  for (let i = 0; i <= text.length; i++) {
    const code = reader.isCode(i);
    out.push(`${i} code ${code}`);
    // Where the text is code, ask what every scanner would be asked there.
    if (code !== true) continue;
    const c = text[i];
    if (c === '"' || c === "'") out.push(`${i} string ends ${skipString(text, i)}`);
    if (c === '(' || c === '[' || c === '{') {
      out.push(`${i} closes ${matchBracket(text, i)} within ${matchBracket(text, i, i + 40)}`);
      out.push(
        `${i} first comma ${scanTo(text, i + 1, text.length, ',')} or colon ${scanTo(text, i + 1, i + 60, ':')}`,
      );
    }
    if (i === 0 || text[i - 1] === '\n') out.push(`${i} line ends ${expressionEnd(text, i)}`);
  }
  dropMap();
  return out;
}

function errorFree(parser: Parser, text: string): boolean {
  const tree = parser.parse(text)!;
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

describe("the layout's map of a module's text", () => {
  it('gives every scanner the answers that reading the text gives, on every Python file of the repository', async () => {
    const parser = await createPythonParser();
    let compared = 0;
    try {
      for (const path of pythonFiles(REPO)) {
        const text = readFileSync(path, 'utf8');
        if (!errorFree(parser, text)) continue;
        dropMap();
        if (!moduleStatementStarts(text) || !mapOf(text)) continue;
        assert.deepEqual(answers(text, true), answers(text, false), path);
        compared++;
      }
    } finally {
      parser.delete();
    }
    assert.ok(compared > 100, `only ${compared} files compared`);
  });

  it('covers the traps: f-strings and their fields, comments, nested and multi-line brackets', () => {
    const text = [
      'a = f"{d[\'k\']} and {x!r:>{width}}" # c (',
      'b = f\'{"}"}\' ; c = rf"{{not a field}}"',
      'd = f"""',
      '{e["k"]} ( [',
      '"""',
      'e = [f(x, (1, 2)), {"k": [3]}]  # ]',
      'g = h(a,',
      '  # ) in a comment',
      "  b=\"(\", c='''",
      ")''')",
      'r = "a \\" b" + \'it\\\'s\'',
    ].join('\n');
    assert.deepEqual(answers(text, true), answers(text, false));
    // Longer than the arrays kept from file to file: mapped in arrays of its own.
    const long = `${text}\n`.repeat(400);
    assert.ok(long.length > 1 << 16);
    assert.deepEqual(answers(long, true), answers(long, false));
    assert.deepEqual(answers(text, true), answers(text, false));
  });

  it('is used only for the text it was made from, and not once dropped', () => {
    dropMap();
    const text = 'x = [1, (2, 3)]\ny = "s"\n';
    moduleStatementStarts(text);
    assert.ok(mapOf(text));
    assert.equal(mapOf('x = [1, (2, 3)]\n'), undefined);
    // Another text at the same offsets is read from its own characters.
    assert.equal(matchBracket('x = [1, 2]', 4), 9);
    dropMap();
    assert.equal(mapOf(text), undefined);
  });

  it('is not made where the layout is unsure or the brackets do not balance', () => {
    for (const text of ['a = f"{d["k"]}"\nb = 1\n', 'a = 1\rb = (2\n', 'x = (1\n', 'x = 1)\n']) {
      dropMap();
      moduleStatementStarts(text);
      assert.equal(mapOf(text), undefined, JSON.stringify(text));
    }
  });
});
