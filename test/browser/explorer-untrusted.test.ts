/**
 * A trace is untrusted input: markup, event handlers, javascript: links and
 * terminal escape sequences in any text field must render as inert text.
 * Checked on the CSP page and on the development page (no CSP), so the
 * escaping itself is what is tested, not only the CSP behind it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fixture, openPage, post, screenshotDir, useExplorerSession } from './harness';

const SCRIPT = '<script>window.__pwned=1</script>';
const IMG = '<img src=x onerror="window.__pwned=1">';

describe('trace explorer with a hostile trace', () => {
  const session = useExplorerSession();

  async function assertInert(page: Page, shot: string): Promise<void> {
    // Give any injected handler (img onerror, script) the chance to run.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 300)));
    assert.equal(
      await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned),
      undefined,
      'no injected script ran',
    );
    const active = await page.evaluate(
      () =>
        document.querySelectorAll(
          '#app script, #app img, #app iframe, #app a, #app object, #app embed, #app svg, #app [onerror], #app [onmouseover], #app [href], #app [src]',
        ).length,
    );
    assert.equal(active, 0, 'no active elements were created from trace content');
    assert.match(await page.title(), /^evil.* — 0\.5$/, 'an OSC title sequence does not set the title');

    assert.ok(
      (await page.getByTestId('answer').innerText()).includes(`ANSWER ${SCRIPT}`),
      'answer markup shown literally',
    );
    assert.ok(
      (await page.getByTestId('answer').innerText()).includes('<a href="javascript:window.__pwned=1">click</a>'),
    );
    assert.ok((await page.getByTestId('prompt').innerText()).includes(`Prompt ${SCRIPT} ${IMG}`));
    assert.ok((await page.locator('#section-header').innerText()).includes(`evil${IMG}`));
    assert.ok((await page.getByTestId('rollout-error').innerText()).includes(`actor failed ${SCRIPT} ${IMG}`));
    assert.ok((await page.getByTestId('warning').innerText()).includes(IMG));
    const grade = page.locator('#section-grade');
    assert.deepEqual(
      await grade
        .locator('tr.sub-row')
        .evaluateAll((trs) => trs.map((tr) => tr.querySelector('.sub-label')?.textContent)),
      [`sub${SCRIPT}`, `pen${IMG}`],
    );
    await grade.getByTestId('toggle-metadata').first().click();
    const meta = await grade.locator('tr.sub-meta').innerText();
    assert.ok(
      meta.includes('meta link') && meta.includes(IMG) && !meta.includes('javascript:'),
      'OSC 8 hyperlink dropped, its text kept',
    );

    const row = (n: number) => page.locator(`.log-viewer[data-phase=actor] .log-row[data-line="${n}"] .log-text`);
    assert.equal(await row(1).innerText(), `LOG1 ${SCRIPT}`);
    assert.equal(await row(2).innerText(), `LOG2 ${IMG}`);
    assert.equal(await row(2).locator('.ansi-31').innerText(), IMG, 'coloured markup is still text');
    assert.equal(await row(3).innerText(), 'LOG3 click me end');
    assert.equal(await row(4).innerText(), 'LOG4 after-osc');
    assert.equal(await row(5).innerText(), 'LOG5  cleared? no');
    assert.equal(await row(6).innerText(), 'LOG6 bell \u2407 and nul \u2400 and lone \u241b');
    assert.equal(await row(7).innerText(), 'LOG7 <b>truecolor</b> \u241b[31');
    assert.equal(await row(8).innerText(), 'LOG8 dcs gone');
    // Tool calls and agent text.
    await page.getByTestId('agent-step-1').click();
    const step = await page.locator('details[data-key="agent-1"]').innerText();
    assert.ok(step.includes(`tool${SCRIPT}`) && step.includes(`thinking ${IMG}`));
    await page.screenshot({ path: join(screenshotDir, shot), fullPage: true });
  }

  test('on the CSP page (as in VS Code)', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    await post(page, { type: 'trace', trace: fixture('injected.hudtrace.json') });
    await assertInert(page, 'injected-csp.png');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, [], 'nothing even tried to run inline code');
    await page.close();
  });

  test('embedded in the page by the host (initialTrace)', async () => {
    const { page, problems } = await openPage(
      session.browser,
      `${session.server.explorerUrl}?initial=injected.hudtrace.json`,
    );
    await page.waitForSelector('body[data-state=trace]');
    await assertInert(page, 'injected-initial.png');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, []);
    await page.close();
  });

  test('on the development page without any CSP', async () => {
    const { page, problems } = await openPage(
      session.browser,
      `${session.server.origin}/media/dev/index.html?trace=/test/fixtures/traces/injected.hudtrace.json`,
    );
    await page.waitForSelector('body[data-state=trace]');
    await assertInert(page, 'injected-no-csp.png');
    assert.deepEqual(problems.errors, []);
    await page.close();
  });

  test('hostile live events are inert too', async () => {
    const { page } = await openPage(session.browser, session.server.explorerUrl);
    const at = new Date().toISOString();
    const task = { ref: `x.py::t`, kind: 'hud', env: `e${IMG}`, id: 'i', args: {}, slug: 's', sourceHash: 'h' };
    await post(page, {
      type: 'events',
      events: [
        { type: 'rollout.started', rolloutId: 'r', at, task, verifier: null },
        { type: 'phase.started', rolloutId: 'r', at, phase: 'actor', substrate: null, reused: false },
        { type: 'log', rolloutId: 'r', at, phase: 'actor', stream: 'stdout', text: `live ${SCRIPT}` },
        { type: 'warning', rolloutId: 'r', at, message: `warn ${IMG}` },
      ],
    } as never);
    await page.waitForSelector('.log-viewer .log-row');
    assert.equal(await page.locator('.log-row[data-line="1"] .log-text').innerText(), `live ${SCRIPT}`);
    assert.ok((await page.getByTestId('warning').innerText()).includes(IMG));
    await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
    assert.equal(await page.evaluate(() => document.querySelectorAll('#app img, #app script').length), 0);
    await page.close();
  });
});
