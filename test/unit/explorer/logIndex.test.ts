/** The whole-log index the explorer's worker runs: lines by number, case-insensitive search past escapes. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LogIndex, lineStarts } from '../../../media/src/explorer/wholeLog/logIndex';
import { makeSideLog, NEEDLE, needleLine } from '../../fixtures/traces/bigTrace';

describe('whole-log index', () => {
  test('line starts: a final newline ends the last line, empty lines count', () => {
    assert.deepEqual([...lineStarts('a\n\nb\n')], [0, 2, 3, 5]);
    assert.deepEqual([...lineStarts('a\n\nb')], [0, 2, 3, 5]);
    const idx = new LogIndex('a\n\nb\n');
    assert.equal(idx.lineCount, 3);
    assert.deepEqual(idx.lines(0, 10), ['a', '', 'b']);
    assert.deepEqual(idx.lines(-5, 1), ['a']);
    assert.deepEqual(idx.lines(2, 2), []);
    assert.equal(new LogIndex('').lineCount, 0);
    assert.deepEqual(new LogIndex('x\r\ny\r\n').lines(0, 2), ['x', 'y']);
  });

  test('search ignores case and escape sequences, finds each line once, in order', () => {
    const idx = new LogIndex(
      'plain\n\u001b[31mRed\u001b[0m alert\nred red red\nnothing\n\u001b]8;;http://x\u0007link\u001b]8;;\u0007 red\n',
    );
    assert.equal(idx.firstHit('RED ALERT'), 1, 'the colour codes between the words do not break the match');
    assert.deepEqual([...idx.allHits('red')], [1, 2, 4]);
    assert.equal(idx.firstHit('red', 3), 4);
    assert.equal(idx.firstHit('http'), -1, 'a hyperlink target is not text');
    assert.equal(idx.firstHit('31m'), -1);
    assert.deepEqual([...idx.allHits('absent')], []);
    assert.equal(idx.firstHit(''), -1);
  });

  test('a character that lowercases longer (U+0130) does not shift later lines', () => {
    const idx = new LogIndex('\u0130stanbul\nneedle here\n');
    assert.equal(idx.firstHit('needle'), 1);
    assert.deepEqual([...idx.allHits('e')], [1]);
  });

  test('100,000 lines of the side-file format: the needle, and the lines around it', () => {
    const lines = 100_000;
    const idx = new LogIndex(makeSideLog(lines));
    assert.equal(idx.lineCount, lines);
    assert.equal(idx.firstHit(NEEDLE), needleLine(lines));
    assert.deepEqual([...idx.allHits(NEEDLE)], [needleLine(lines)]);
    assert.deepEqual([...idx.allHits('processing item 9999 ')], [9999]);
    assert.match(idx.lines(needleLine(lines), needleLine(lines) + 1)[0] ?? '', new RegExp(`${NEEDLE} found here$`));
    assert.equal(idx.lines(lines - 1, lines + 5).length, 1);
  });
});
