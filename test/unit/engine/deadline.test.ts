import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Deadline, abortable } from '../../../client/src/engine/deadline';
import { CancelledError, TimeoutError } from '../../../client/src/engine/errors';

describe('deadlines and abortable work', () => {
  test('a deadline aborts with a TimeoutError naming what ran out of time; reset restarts the clock', async () => {
    // Margins are wide on purpose: a loaded machine may run a timer long after it is due.
    const d = new Deadline('actor phase', undefined, 30);
    d.reset(5_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(d.signal.aborted, false, 'reset replaced the first deadline');
    d.reset(20);
    await new Promise((r) => d.signal.addEventListener('abort', r));
    assert.ok(d.signal.reason instanceof TimeoutError);
    assert.match((d.signal.reason as Error).message, /actor phase timed out after 20 ms/);
    d.dispose();
  });

  test("a parent cancel reaches the child with the parent's reason", () => {
    const parent = new AbortController();
    const d = new Deadline('verifier phase', parent.signal);
    const why = new CancelledError();
    parent.abort(why);
    assert.equal(d.signal.reason, why);
    d.dispose();
  });

  test('abortable passes results through, and rejects at once on abort; a late value goes to onLate', async () => {
    const ctl = new AbortController();
    assert.equal(await abortable(Promise.resolve(7), ctl.signal), 7);
    await assert.rejects(abortable(Promise.reject(new Error('x')), ctl.signal), /x/);

    let finish!: (v: string) => void;
    const slow = new Promise<string>((r) => (finish = r));
    const late: string[] = [];
    const raced = abortable(slow, ctl.signal, (v) => late.push(v));
    ctl.abort(new TimeoutError('rollout', 5));
    await assert.rejects(raced, TimeoutError);
    finish('substrate');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(late, ['substrate']);

    const already = abortable(Promise.resolve('x'), ctl.signal, (v) => late.push(v));
    await assert.rejects(already, TimeoutError);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(late, ['substrate', 'x']);
  });
});
