import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mean, passAtK, passes } from '../../../client/src/engine/jobStats';

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} != ${b}`);

describe('job statistics', () => {
  test('pass@k is the unbiased estimator 1 - C(n-c,k)/C(n,k)', () => {
    close(passAtK(5, 0, 1), 0);
    close(passAtK(5, 5, 1), 1);
    close(passAtK(5, 2, 1), 2 / 5);
    close(passAtK(5, 2, 2), 1 - 3 / 10); // C(3,2)/C(5,2)
    close(passAtK(4, 1, 4), 1);
    close(passAtK(10, 3, 3), 1 - 35 / 120); // C(7,3)/C(10,3)
    close(passAtK(3, 1, 10), 1); // k clamped to n
    close(passAtK(0, 0, 1), 0);
  });

  test('mean and pass', () => {
    assert.equal(mean([]), null);
    close(mean([0, 1, 0.5])!, 0.5);
    assert.equal(passes({ status: 'completed', reward: 1 }, 1), true);
    assert.equal(passes({ status: 'completed', reward: 0.99 }, 1), false);
    assert.equal(passes({ status: 'completed', reward: 0.5 }, 0.5), true);
    assert.equal(passes({ status: 'error', reward: null }, 0), false);
    assert.equal(passes({ status: 'completed', reward: 1.5 }, 1), true, 'rewards are not clamped');
  });
});
