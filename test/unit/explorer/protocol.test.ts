import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isExplorerToHostMessage } from '../../../common/explorerMessages';

test('the host accepts only well-formed webview messages', () => {
  assert.ok(isExplorerToHostMessage({ type: 'ready' }));
  assert.ok(isExplorerToHostMessage({ type: 'openTask', ref: 'env.py::task' }));
  assert.ok(isExplorerToHostMessage({ type: 'openFile', path: '/tmp/trial' }));
  for (const bad of [
    null,
    'ready',
    {},
    { type: 'openTask' },
    { type: 'openTask', ref: '' },
    { type: 'openFile', path: 3 },
    { type: 'eval', code: '1' },
  ]) {
    assert.equal(isExplorerToHostMessage(bad), false, JSON.stringify(bad));
  }
});
