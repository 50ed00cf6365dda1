import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_RESTARTS, RESTART_WINDOW_MS, ServerRestarts } from '../../../client/src/serverRestarts';

test('a server that dies now and then is restarted; one that keeps dying is stopped with a message', () => {
  let now = 1_000_000;
  const r = new ServerRestarts(() => now);
  for (let i = 1; i <= MAX_RESTARTS; i++) {
    const v = r.closed();
    assert.ok(v.restart, `close ${i} restarts`);
    assert.match(v.log, new RegExp(`\\(${i} of ${MAX_RESTARTS}\\)`));
    now += 1000;
  }
  const stop = r.closed();
  assert.equal(stop.restart, false);
  assert.match(stop.restart ? '' : stop.message, /stopped 5 times in 3 minutes.*log/);

  // Crashes older than the window are forgotten; a manual restart forgets them all.
  now += RESTART_WINDOW_MS;
  assert.ok(r.closed().restart);
  for (let i = 0; i < MAX_RESTARTS; i++) r.closed();
  assert.equal(r.closed().restart, false);
  r.reset();
  assert.ok(r.closed().restart);
});
