import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { progressReporter } from '../../../client/src/cli/progress';
import { formatReward, formatSubscores, humanRenderer } from '../../../client/src/cli/render';
import type { RolloutEvent } from '../../../common/events';

const sink = (isTTY: boolean) => {
  const chunks: string[] = [];
  return { chunks, stream: { isTTY, columns: 100, write: (t: string) => chunks.push(t) } };
};
const p = (done: number, total: number) => ({
  total,
  done,
  running: total - done > 0 ? 1 : 0,
  completed: done,
  errored: 0,
  cancelled: 0,
  passed: done,
});

describe('CLI rendering', () => {
  test('the progress bar redraws in place on a terminal and ends with a newline', () => {
    const { chunks, stream } = sink(true);
    const bar = progressReporter(stream);
    bar.update(p(0, 4));
    bar.update(p(2, 4));
    bar.done();
    assert.ok(chunks[0]!.startsWith('\r[') && chunks[0]!.includes('0/4'));
    assert.match(chunks[1]!, /^\r\[#+-+\] 2\/4 /);
    assert.equal(chunks.at(-1), '\n');
  });

  test('without a terminal, one plain line per finished run', () => {
    const { chunks, stream } = sink(false);
    const bar = progressReporter(stream);
    bar.update(p(0, 2));
    bar.update(p(0, 2));
    bar.update(p(1, 2));
    bar.done();
    assert.deepEqual(chunks, [
      '0/2 done (running 1, passed 0, errors 0)\n',
      '1/2 done (running 1, passed 1, errors 0)\n',
    ]);
  });

  test('rewards, penalties and nested subscores', () => {
    assert.equal(formatReward(-0.0001), '0.00');
    assert.equal(formatReward(1.5), '1.50');
    assert.equal(formatReward(null), 'none');
    assert.deepEqual(
      formatSubscores(
        [
          { name: 'a', value: 1, weight: 0.5, children: [{ name: 'b', value: 0, weight: 1 }] },
          { name: 'p', value: 1, weight: -0.2 },
        ],
        '> ',
      ),
      ['> a: 1.00 × 0.5', '>   b: 0.00 × 1', '> p: 1.00 × -0.2 (penalty)'],
    );
  });

  test('an errored rollout says where and why, without a reward', () => {
    const { chunks, stream } = sink(false);
    const render = humanRenderer(stream);
    const e = {
      type: 'rollout.ended',
      rolloutId: 'r',
      at: '',
      status: 'error',
      reward: null,
      result: null,
      tracePath: '/t/x.hudtrace.json',
      error: { phase: 'verifier', message: 'boom' },
    } as RolloutEvent;
    render(e);
    assert.deepEqual(chunks, ['error in verifier: boom (no reward)\n', 'trace: /t/x.hudtrace.json\n']);
  });
});
