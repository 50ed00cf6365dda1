import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandEnvTable, expandEnvValue, referencedVariables } from '../../../common/harbor';

test('${VAR} takes the variable, ${VAR:-default} falls back when unset or empty', () => {
  const vars = { A: 'alpha', EMPTY: '' };
  assert.equal(expandEnvValue('x-${A}-y', vars), 'x-alpha-y');
  assert.equal(expandEnvValue('${B:-beta}', vars), 'beta');
  assert.equal(expandEnvValue('${EMPTY:-filled}', vars), 'filled');
  assert.equal(expandEnvValue('${A:-unused}', vars), 'alpha');
  assert.equal(expandEnvValue('${B:-}', vars), '');
  assert.equal(expandEnvValue('$A and {A}', vars), '$A and {A}');
});

test('unset variables without a default are reported', () => {
  const r = expandEnvTable({ K: '${MISSING}', L: '${MISSING}/${A}', M: '${EMPTY}' }, { A: 'a', EMPTY: '' });
  assert.deepEqual(r.env, { K: '', L: '/a', M: '' });
  assert.deepEqual(r.missing, ['MISSING']);
});

test('referenced variables are listed once', () => {
  assert.deepEqual(referencedVariables({ a: '${X} ${Y:-1}', b: '${X}' }), ['X', 'Y']);
});
