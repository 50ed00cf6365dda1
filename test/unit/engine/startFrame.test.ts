import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ProtocolError } from '../../../client/src/engine/errors';
import { checkStartFrame } from '../../../client/src/engine/startFrame';

describe("the actor's prompt, as the SDK's client accepts it", () => {
  test('nothing, text, a mapping, and lists of turns or plain items pass', () => {
    for (const prompt of [
      undefined,
      null,
      '',
      'Spell it.',
      { question: 'q' },
      ['one', 2, null, ['nested']],
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'assistant', content: { type: 'text', text: 'ok' } },
        { content: { type: 'image', data: 'AA==', mimeType: 'image/png' } },
        { content: { type: 'resource_link', uri: 'file:///a', name: 'a' } },
        { content: { type: 'resource', resource: { uri: 'file:///b', blob: 'AA==' } } },
      ],
    ]) {
      assert.doesNotThrow(() => checkStartFrame({ prompt }), JSON.stringify(prompt));
    }
  });

  test('a number, a boolean, a bare content block and a turn without content are refused, naming what', () => {
    const cases: [unknown, RegExp][] = [
      [42, /a number \(42\) is neither text nor a list of turns/],
      [true, /a boolean/],
      [[{ type: 'text', text: 'hi' }], /turn 0 has no "content"/],
      [['ok', { role: 'user', content: 5 }], /turn 1 has "content" that is neither text nor an object/],
      [[{ content: { type: 'text' } }], /"text" block without text "text"/],
      [[{ content: { type: 'video', url: 'x' } }], /unknown type "video"/],
      [[{ content: { type: 'resource', resource: { uri: 'u' } } }], /neither "text" nor "blob"/],
    ];
    for (const [prompt, says] of cases) {
      assert.throws(
        () => checkStartFrame({ prompt }),
        (err: unknown) => err instanceof ProtocolError && says.test(err.message) && /HUD SDK/.test(err.message),
        JSON.stringify(prompt),
      );
    }
  });

  test('bindings, when present, map capability names to objects', () => {
    assert.doesNotThrow(() => checkStartFrame({ prompt: 'p', bindings: { robot: { token: 't' } } }));
    assert.doesNotThrow(() => checkStartFrame({ prompt: 'p', bindings: null }));
    for (const bindings of ['slot-1', ['a'], { robot: 't-1' }]) {
      assert.throws(() => checkStartFrame({ prompt: 'p', bindings }), /"bindings" the HUD SDK refuses/);
    }
  });
});
