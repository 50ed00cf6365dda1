import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseInitOptions } from '../../../server/src/initOptions';

describe('language server initialization options', () => {
  test('none sent: defaults, no complaint', () => {
    assert.deepEqual(parseInitOptions(undefined), { options: {}, problem: undefined });
    assert.deepEqual(parseInitOptions(null), { options: {}, problem: undefined });
  });

  test('what the client sends is read as typed options', () => {
    assert.deepEqual(parseInitOptions({ workspaceTrusted: false, excludeDirs: ['build', 'venv'] }), {
      options: { workspaceTrusted: false, excludeDirs: ['build', 'venv'] },
      problem: undefined,
    });
  });

  test('a wrong shape is ignored with a reason that names the option', () => {
    const wrongList = parseInitOptions({ excludeDirs: 'build' });
    assert.deepEqual(wrongList.options, {});
    assert.match(wrongList.problem ?? '', /^initializationOptions ignored: excludeDirs: /);
    const wrongItem = parseInitOptions({ excludeDirs: ['ok', 3] });
    assert.match(wrongItem.problem ?? '', /excludeDirs\.1/);
    assert.match(parseInitOptions('trusted').problem ?? '', /\(options\)/);
  });
});
