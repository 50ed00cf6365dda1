import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assignedValueAt,
  calleeEndAt,
  definitionHeadAt,
  envDecoratorAt,
  identifierEnd,
  keywordValueAt,
  stringPrefixLength,
} from '../../../server/src/analysis/pyScan';
import { literalArg } from '../../../server/src/analysis/literalArg';
import { ESCAPES, literalString } from '../../../server/src/analysis/syntax';
import { linesStartingWith } from '../../../server/src/analysis/sdkChecks';

/*
 * The readers extraction uses instead of sticky patterns must say exactly
 * what those patterns said: each is compared with its pattern at every
 * offset of texts made of random pieces of Python, with a fixed seed.
 */

const PIECES = [
  'a',
  'task',
  '_x1',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '=',
  '==',
  ':',
  ': int ',
  '.',
  ' . ',
  '(',
  ')',
  '[0]',
  ',',
  '"',
  "'",
  '"""',
  'r',
  'b',
  'f',
  'u',
  'R',
  'rb',
  'é',
  '1',
  '-',
  '#',
  '\\',
  '@',
  'from',
  'import',
  'hud',
  'env',
  '.template',
  'template',
  'scenario',
  'async',
  'def',
  'class',
];

function randomTexts(count: number, seed: number): string[] {
  const random = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(random() * 14) }, () => PIECES[Math.floor(random() * PIECES.length)]).join(''),
  );
}

const TEXTS = [
  ...randomTexts(4000, 20261204),
  // Decorator-shaped ones, which pieces at random rarely make.
  ...randomTexts(1500, 12).map((t, i) => `@${' '.repeat(i % 2)}env${i % 3 ? ' . ' : '.'}${t}`),
  'env . solve (x)',
  'a.b.c(',
  'a . (',
  'x: int = 3',
  'x: "a=b" = 3',
  'x == 3',
  'k =\n  v',
  'rb"x"',
  'Rf"""a"""',
  'rr"',
  "b''",
];

/** What a sticky `re` matched at `at`: where the match ends (or its first capture), or -1. */
function stickyEnd(re: RegExp, text: string, at: number, group?: number): number {
  re.lastIndex = at;
  const m = re.exec(text);
  if (!m) return -1;
  return group === undefined ? at + m[0].length : at + m[group]!.length;
}

describe('reading heads of statements without regular expressions', () => {
  it('agrees with the patterns it replaces at every offset of random texts', () => {
    const cases: [string, (t: string, at: number) => number, (t: string, at: number) => number][] = [
      ['keywordValueAt', keywordValueAt, (t, at) => stickyEnd(/([A-Za-z_]\w*)\s*=(?!=)\s*/y, t, at)],
      ['assignedValueAt', assignedValueAt, (t, at) => stickyEnd(/([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)\s*/y, t, at)],
      ['calleeEndAt', calleeEndAt, (t, at) => stickyEnd(/([A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*)\s*\(/y, t, at, 1)],
      ['identifierEnd', identifierEnd, (t, at) => Math.max(at, stickyEnd(/[A-Za-z_]\w*/y, t, at))],
      [
        'stringPrefixLength',
        stringPrefixLength,
        (t, at) => {
          const end = stickyEnd(/[rRbBuUfF]{0,2}(?=["'])/y, t, at);
          return end < 0 ? -1 : end - at;
        },
      ],
    ];
    let compared = 0;
    for (const [name, reader, pattern] of cases)
      for (const text of TEXTS)
        for (let at = 0; at <= text.length; at++) {
          assert.equal(reader(text, at), pattern(text, at), `${name} at ${at} of ${JSON.stringify(text)}`);
          compared++;
        }
    assert.ok(compared > 100_000);
  });

  it('reads bounded heads as the patterns did on the text cut at the bound', () => {
    const matched = { kw: 0, def: 0, dec: 0 };
    for (const text of TEXTS)
      for (let at = 0; at <= text.length; at++)
        for (const limit of [text.length, Math.min(text.length, at + 3), Math.min(text.length, at + 9)]) {
          const cut = text.slice(at, limit);
          const where = `at ${at}, limit ${limit} of ${JSON.stringify(text)}`;
          const kw = /^([A-Za-z_]\w*)\s*=(?!=)\s*/.exec(cut);
          assert.equal(keywordValueAt(text, at, limit), kw ? at + kw[0].length : -1, `keywordValueAt ${where}`);
          const def = /^(async\s+)?(def|class)\s+([A-Za-z_]\w*)\s*/.exec(cut);
          const head = definitionHeadAt(text, at, limit);
          assert.deepEqual(
            head && [head.isAsync, head.isClass, text.slice(head.nameAt, head.nameEnd), head.end],
            def ? [!!def[1], def[2] === 'class', def[3], at + def[0].length] : undefined,
            `definitionHeadAt ${where}`,
          );
          const dec = /^@\s*([A-Za-z_]\w*)\s*\.\s*(template|scenario)\b\s*/.exec(cut);
          const found = envDecoratorAt(text, at, limit);
          assert.deepEqual(
            found && [text.slice(found.nameAt, found.nameEnd), found.kind, found.end],
            dec ? [dec[1], dec[2], at + dec[0].length] : undefined,
            `envDecoratorAt ${where}`,
          );
          if (kw) matched.kw++;
          if (def) matched.def++;
          if (dec) matched.dec++;
        }
    assert.ok(matched.kw > 500 && matched.def > 50 && matched.dec > 50, JSON.stringify(matched));
  });

  it('reads string and other literals as the patterns did', () => {
    // The reading before it used a pattern for the prefix and quote (kept here as the reference).
    const reference = (source: string): string | undefined => {
      const m = /^([rRbBuUfF]{0,2})("""|'''|"|')/.exec(source);
      if (!m) return undefined;
      const prefix = m[1]!.toLowerCase();
      const quote = m[2]!;
      if (source.length - quote.length < m[0].length || !source.endsWith(quote)) return undefined;
      let out = '';
      for (let i = m[0].length; i < source.length - quote.length; i++) {
        const c = source[i]!;
        if (c === '\\') {
          const next = source[i + 1] ?? '';
          out += prefix.includes('r') ? '\\' + next : (ESCAPES[next] ?? '\\' + next);
          i++;
        } else if (source.startsWith(quote, i)) return undefined;
        else if (prefix.includes('f') && (c === '{' || c === '}')) return undefined;
        else out += c;
      }
      return out;
    };
    const quotes = ['"', "'", '"""', "'''"];
    const prefixes = ['', '', 'r', 'f', 'b', 'rb', 'Rf', 'u', 'x'];
    let strings = 0;
    randomTexts(4000, 99).forEach((body, i) => {
      const q = quotes[i % quotes.length]!;
      const text = prefixes[i % prefixes.length]! + q + body + (i % 7 === 0 ? '' : q);
      const value = literalString(text);
      assert.equal(value, reference(text), JSON.stringify(text));
      if (value !== undefined) strings++;
    });
    assert.ok(strings > 500, `${strings} random texts were strings`);
    assert.equal(literalString('"a\\"b"'), 'a"b');
    assert.equal(literalString("r'a\\'b'"), "a\\'b");
    assert.equal(literalString('"""a"b"""'), 'a"b');
    assert.equal(literalString('"a" "b"'), undefined);
    assert.equal(literalString('f"{x}"'), undefined);
    assert.equal(literalString('F"x"'), 'x');

    const lit = (source: string) => literalArg(source, { start: 0, end: source.length });
    assert.deepEqual(lit('"x"'), { kind: 'str', value: 'x' });
    assert.deepEqual(lit("u'x'"), { kind: 'str', value: 'x' });
    assert.deepEqual(lit('R"x"'), { kind: 'str', value: 'x' });
    for (const notStr of ['b"x"', 'rb"x"', 'Br"x"', 'f"x"', 'rf"x"', 'name', 'f(x)', 'x1'])
      assert.equal(lit(notStr), undefined, notStr);
    assert.deepEqual(lit('1_000'), { kind: 'int', value: '1000' });
    assert.deepEqual(lit('-2.5'), { kind: 'float', value: '-2.5' });
    assert.deepEqual(lit('.5'), { kind: 'float', value: '.5' });
    assert.deepEqual(lit('True'), { kind: 'bool', value: 'True' });
    assert.deepEqual(lit('None'), { kind: 'none', value: 'None' });
  });

  it('finds the lines the line-start patterns found, and only those', () => {
    const texts = [
      ...randomTexts(4000, 7),
      'x = 1\n  from hud import (\n  Environment, Nope)\nfrom hud import Environment  # Nope\n',
      'from hud import A, \\\n  B\n\rfrom hud.graders import Nope',
      'env = Environment("e")\n@env.template\nasync def a(): yield 1\n\t@env.template  # no parens\n  x @env.template\n',
      'from hud import Environment\u2028from hud import Nope',
    ];
    const patterns: [string, string][] = [
      [
        'from',
        '[ \\t]*from[ \\t]+(hud(?:\\.[A-Za-z_]\\w*)*)[ \\t]+import[ \\t]+(\\([^)]*\\)|[^\\n#]*(?:\\\\\\n[^\\n#]*)*)',
      ],
      ['@', '[ \\t]*@([A-Za-z_]\\w*)\\.template[ \\t]*(?:#[^\\n]*)?$'],
      ['from', '[ \\t]*from[ \\t]+(\\w+)'],
    ];
    let found = 0;
    for (const [word, source] of patterns)
      for (const text of texts.map((t) => t.replace(/hud/g, 'from hud import Nope\n'))) {
        const old = [...text.matchAll(new RegExp('^' + source, 'gm'))].map((m) => [m.index, m[0]]);
        const now = [...linesStartingWith(text, word, new RegExp(source, 'my'))].map((m) => [m.index, m[0]]);
        assert.deepEqual(now, old, JSON.stringify(text));
        found += now.length;
      }
    assert.ok(found > 150, `${found} lines found`);
  });
});
