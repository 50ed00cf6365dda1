import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jobViewData, makeNonce, renderJobViewHtml } from '../../../client/src/jobView/page';

describe('job view page', () => {
  test('a job without models becomes one "agent" column from its tasks', () => {
    const d = jobViewData({
      jobId: 'j',
      k: 2,
      threshold: 1,
      total: 2,
      meanReward: 0.5,
      errorsByPhase: { setup: 0, actor: 1, verifier: 0 },
      tasks: [{ ref: 'env.py::t', meanReward: 0.5, passed: 1, passAtK: 1, runs: [{ trace: '/a' }, { trace: '/b' }] }],
    });
    assert.deepEqual(d.models, ['agent']);
    assert.deepEqual(d.cells, [[{ meanReward: 0.5, runs: 2, passed: 1, passAtK: 1, traces: ['/a', '/b'] }]]);
    assert.deepEqual(d.modelRows[0]!.errors, { setup: 0, actor: 1, verifier: 0 });
  });

  test('malformed input is empty, not an exception', () => {
    for (const bad of [null, 7, 'x', [], { matrix: { cells: 'no' } }, { matrix: { cells: [[null, 3]] } }]) {
      const d = jobViewData(bad);
      assert.ok(Array.isArray(d.cells));
    }
  });

  test('the data cannot close its script block; the CSP allows only the nonce', () => {
    const nonce = makeNonce();
    const html = renderJobViewHtml({
      cspSource: 'vscode-resource:',
      scriptUri: 'x.js',
      nonce,
      data: jobViewData({ jobId: '</script><script>alert(1)</script>' }),
    });
    assert.equal(html.match(/<\/script>/g)?.length, 2, "only the page's own two script blocks end");
    assert.match(html, new RegExp(`script-src 'nonce-${nonce.replace(/[+/=]/g, '\\$&')}'`));
    assert.doesNotMatch(html, /unsafe-inline|unsafe-eval/);
  });
});
