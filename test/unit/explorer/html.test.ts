import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { makeNonce, renderExplorerHtml } from '../../../client/src/explorer/html';

const cspOf = (html: string): string => {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(m, 'the page has a CSP meta tag');
  return (m[1] as string).replace(/&#39;|&apos;/g, "'");
};

describe('renderExplorerHtml', () => {
  const nonce = makeNonce();
  const html = renderExplorerHtml({
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    scriptUri: 'https://x.test/dist/media/explorer.js',
    nonce,
  });

  test('has a strict CSP with the nonce and nothing unsafe', () => {
    const csp = cspOf(html);
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([k, ...v]) => [k as string, v]),
    );
    assert.deepEqual(directives.get('default-src'), ["'none'"]);
    assert.deepEqual(directives.get('script-src'), [`'nonce-${nonce}'`]);
    assert.deepEqual(directives.get('style-src'), ['https://file+.vscode-resource.vscode-cdn.net', `'nonce-${nonce}'`]);
    assert.deepEqual(directives.get('img-src'), ['https://file+.vscode-resource.vscode-cdn.net', 'data:']);
    assert.deepEqual(directives.get('font-src'), ['https://file+.vscode-resource.vscode-cdn.net']);
    // Workers only from blobs the page's own (nonce'd) script makes: the whole-log index.
    assert.deepEqual(directives.get('worker-src'), ['blob:']);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  });

  test('loads exactly one script, carrying the nonce, and has no inline handlers', () => {
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    assert.equal(scripts.length, 1);
    assert.match(scripts[0] as string, new RegExp(`nonce="${nonce.replace(/[+/=]/g, (c) => `\\${c}`)}"`));
    assert.match(scripts[0] as string, /src="https:\/\/x\.test\/dist\/media\/explorer\.js"/);
    assert.doesNotMatch(html, /\son[a-z]+=/i);
    assert.match(html, /<div id="app"/);
  });

  test('an initial trace cannot break out of its data block', () => {
    const page = renderExplorerHtml({
      cspSource: 'x',
      scriptUri: 'y.js',
      nonce,
      initialTrace: { answer: '</script><script>alert(1)</script><!--' },
    });
    const block = /<script type="application\/json" id="hud-initial-trace"[^>]*>([\s\S]*?)<\/script>/.exec(page);
    assert.ok(block);
    assert.doesNotMatch(block[1] as string, /</);
    assert.deepEqual(JSON.parse(block[1] as string), { answer: '</script><script>alert(1)</script><!--' });
  });

  test('escapes attribute values and refuses a weak nonce', () => {
    const page = renderExplorerHtml({ cspSource: 'x', scriptUri: 'a.js?x="><script>', nonce });
    assert.doesNotMatch(page, /"><script>/);
    assert.throws(() => renderExplorerHtml({ cspSource: 'x', scriptUri: 'a.js', nonce: 'abc' }), /nonce/);
    assert.throws(
      () => renderExplorerHtml({ cspSource: 'x', scriptUri: 'a.js', nonce: `${nonce}' 'unsafe-inline` }),
      /nonce/,
    );
  });
});

test('makeNonce gives distinct base64 nonces of 128 bits', () => {
  const a = makeNonce();
  const b = makeNonce();
  assert.notEqual(a, b);
  assert.match(a, /^[A-Za-z0-9+/]{22}==$/);
});
