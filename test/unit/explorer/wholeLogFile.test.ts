/** The host reads only the side file the trace writer put beside the trace shown. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { wholeLogFile } from '../../../client/src/explorer/wholeLogFile';

describe('whole-log file the explorer may read', () => {
  const trace = join('/runs', 'job', 'task-1.hudtrace.json');

  test('the phase file beside the trace', () => {
    assert.deepEqual(wholeLogFile(trace, 'actor', 'task-1.logs/actor.log'), {
      ok: true,
      path: join('/runs', 'job', 'task-1.logs', 'actor.log'),
    });
    assert.equal(wholeLogFile(trace, 'verifier', 'task-1.logs/verifier.log').ok, true);
  });

  test('anything else the page names is refused, with the file it would read', () => {
    for (const file of [
      '../task-1.logs/actor.log',
      '/etc/passwd',
      'task-1.logs/../../secret.log',
      'task-1.logs/verifier.log',
      'task-2.logs/actor.log',
      'task-1.logs/actor.log/',
    ]) {
      const r = wholeLogFile(trace, 'actor', file);
      assert.equal(r.ok, false, file);
      if (!r.ok) assert.match(r.message, /only task-1\.logs\/actor\.log is read/);
    }
  });
});
