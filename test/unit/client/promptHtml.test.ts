import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { needsPromptPage, promptHtml } from '../../../client/src/promptHtml';

describe('prompt page of the ask agent', () => {
  test('untrusted prompt text is escaped and the page allows no script', () => {
    const html = promptHtml({
      title: 'env.py::t <b>',
      prompt: '</pre><script>alert(1)</script><img src=x onerror=alert(2)>',
      nonce: 'abcdefghijklmnopqrstuv',
    });
    assert.ok(!html.includes('<script>'));
    assert.ok(!html.includes('<img'));
    assert.match(html, /&lt;\/pre&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /<title>env\.py::t &lt;b&gt;<\/title>/);
    const csp = /Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
    assert.equal(csp, "default-src 'none'; style-src 'nonce-abcdefghijklmnopqrstuv'");
  });

  test('only long or multi-line prompts need the page', () => {
    assert.equal(needsPromptPage('What is 2+2?'), false);
    assert.equal(needsPromptPage('a\nb'), true);
    assert.equal(needsPromptPage('x'.repeat(161)), true);
  });
});
