import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnsi, plainText, plainTextBlock, plainTextLines } from '../../../media/src/explorer/ansi';
import { seededRandom } from '../../support/random';

const E = '\u001b';
const segs = (line: string) => parseAnsi(line).segments.map((s) => [s.text, s.fg ?? null, s.bold]);

describe('parseAnsi', () => {
  test('plain text is one unstyled segment', () => {
    assert.deepEqual(segs('hello <b>world</b>'), [['hello <b>world</b>', null, false]]);
    assert.deepEqual(segs(''), []);
  });

  test('SGR colours, bright colours, bold, default colour and reset', () => {
    assert.deepEqual(segs(`a${E}[31mred${E}[1mbold${E}[39mdef${E}[0mplain`), [
      ['a', null, false],
      ['red', 31, false],
      ['bold', 31, true],
      ['def', null, true],
      ['plain', null, false],
    ]);
    assert.deepEqual(segs(`${E}[92;1mok${E}[22m!${E}[m.`), [
      ['ok', 92, true],
      ['!', 92, false],
      ['.', null, false],
    ]);
  });

  test('256-colour indexes below 16 map to named colours; truecolour is ignored', () => {
    assert.deepEqual(segs(`${E}[38;5;1mx${E}[38;5;9my${E}[38;2;1;2;3mz`), [
      ['x', 31, false],
      ['y', 91, false],
      ['z', 91, false],
    ]);
  });

  test('style carries across lines', () => {
    const first = parseAnsi(`${E}[33mstart`);
    assert.deepEqual(parseAnsi('next', first.end).segments, [{ text: 'next', fg: 33, bold: false }]);
  });

  test('OSC (titles, hyperlinks), DCS and cursor sequences are dropped, their visible text kept', () => {
    assert.equal(plainText(`${E}]8;;javascript:alert(1)${E}\\click${E}]8;;${E}\\ end`), 'click end');
    assert.equal(plainText(`${E}]0;evil\u0007after`), 'after');
    assert.equal(plainText(`${E}[2J${E}[H${E}[?1049hcleared`), 'cleared');
    assert.equal(plainText(`${E}P+q544e${E}\\gone`), 'gone');
    assert.equal(plainText(`${E}7saved${E}8`), 'saved');
    assert.equal(plainText(`${E}(Bcharset`), 'charset');
  });

  test('unterminated or stray escapes and control characters stay visible as symbols', () => {
    assert.equal(plainText(`a${E}[31`), 'a\u241b[31');
    assert.equal(plainText(`x${E}]0;never ends`), 'x\u241b]0;never ends');
    assert.equal(plainText(`lone ${E}`), 'lone \u241b');
    assert.equal(plainText(`esc ${E}\u0001`), 'esc \u241b\u2401');
    assert.equal(plainText(`bell\u0007 nul\u0000 del\u007f c1\u009b`), 'bell\u2407 nul\u2400 del\u2421 c1\ufffd');
    assert.equal(plainText('tab\tkept'), 'tab\tkept');
  });

  test('private SGR-like sequences change nothing', () => {
    assert.deepEqual(segs(`${E}[31mr${E}[>4mstill`), [
      ['r', 31, false],
      ['still', 31, false],
    ]);
  });

  test('plainTextBlock strips escapes per line and keeps newlines', () => {
    assert.equal(plainTextBlock(`${E}[32mok${E}[0m\r\nnext ${E}[1mline`), 'ok\nnext line');
  });
});

test('plainTextLines agrees with plainText line by line, on random escape soup', () => {
  const rnd = seededRandom(0x5eed);
  const alphabet = [
    E,
    E,
    E,
    '[',
    ']',
    'P',
    '_',
    '(',
    ' ',
    '?',
    ';',
    '3',
    '1',
    'm',
    'H',
    'a',
    'Z',
    '\\',
    '\u0007',
    '\u0000',
    '\u009b',
    '\t',
    '\r',
    'é',
    '<',
  ];
  for (let round = 0; round < 2000; round++) {
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () =>
      Array.from({ length: Math.floor(rnd() * 16) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join(''),
    );
    assert.equal(plainTextLines(lines), lines.map((l) => plainText(l)).join('\n'), JSON.stringify(lines));
  }
});
