import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forTerminal } from '../../../client/src/terminalText';

test('control characters are shown, not acted on; tab and printable text pass unchanged', () => {
  assert.equal(forTerminal('a\tb ünï ⏎'), 'a\tb ünï ⏎');
  assert.equal(forTerminal('\x1b[2K\rreward 1.00\x07'), '\\x1b[2K\\x0dreward 1.00\\x07');
  assert.equal(forTerminal('\x00\x7f\x9b\x85'), '\\x00\\x7f\\x9b\\x85');
});

test('a line break keeps its line but indents the next, so quoted text never starts a line of its own', () => {
  assert.equal(forTerminal('x\nreward 1.00'), 'x\n  reward 1.00');
  assert.equal(forTerminal('x\nreward 1.00', '│ '), 'x\n│ reward 1.00');
  assert.equal(forTerminal('x\ny', ''), 'x\ny');
});
