/**
 * A whole log from a side file: the page asks its host for the file, a
 * 1,000,000-line log opens with only a screenful of rows in the DOM, a search
 * jumps to its one hit and counts the hits, and the page stays inside its
 * CSP (the index runs in a blob worker). The test plays the host: it answers
 * the page's `openWholeLog` with the side file's bytes as VS Code delivers
 * them (a window message), made in the page.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { ExplorerToHostMessage } from '../../common/explorerMessages';
import { makeSideLogTrace, NEEDLE, needleLine, sideLogBytesScript } from '../fixtures/traces/bigTrace';
import { openPage, post, useExplorerSession } from './harness';

const LINES = 1_000_000;

/** What the page asked its host for (outside VS Code it records its messages on `window.hudExplorerOutbox`). */
function outbox(page: Page): Promise<ExplorerToHostMessage[]> {
  return page.evaluate(() => window.hudExplorerOutbox ?? []);
}

async function openWholeLog(page: Page): Promise<ExplorerToHostMessage | undefined> {
  await page.getByTestId('whole-log-actor').click();
  return (await outbox(page)).find((m) => m.type === 'openWholeLog');
}

describe('trace explorer whole log', () => {
  const session = useExplorerSession();

  test('1,000,000 lines: opens from the side file, finds the one hit, walks many', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    await post(page, { type: 'trace', trace: makeSideLogTrace(LINES, 'big') });
    const head = page.locator('.log-viewer[data-phase=actor]:not(.whole-log)');
    assert.equal(await head.locator('.log-count').innerText(), '200 lines', 'the trace keeps the head and tail');

    assert.deepEqual(await openWholeLog(page), { type: 'openWholeLog', phase: 'actor', file: 'big.logs/actor.log' });
    await page.evaluate(
      `window.postMessage({ type: 'wholeLog', phase: 'actor', data: ${sideLogBytesScript(LINES)} }, '*')`,
    );
    const whole = page.locator('.log-viewer.whole-log[data-phase=actor]');
    await whole.locator('.log-count', { hasText: '1,000,000 lines' }).waitFor();
    assert.equal(await page.getByTestId('logs-tab-actor').innerText(), 'actor (whole log)');
    const rowsInDom = await whole.locator('.log-row').count();
    assert.ok(rowsInDom > 10 && rowsInDom < 200, `only visible rows are in the DOM (${rowsInDom})`);
    const first = whole.locator('.log-row[data-line="1"]');
    assert.match(await first.innerText(), /line 0: processing item 0 step=0/);
    assert.match((await first.getAttribute('class')) ?? '', /stream-stderr/, 'the [stderr] mark becomes the stream');

    const input = whole.locator('input.log-search');
    await input.fill(NEEDLE.toUpperCase());
    await whole.locator('.log-count', { hasText: '1 of 1' }).waitFor();
    const line = needleLine(LINES) + 1;
    const hit = whole.locator(`.log-row[data-line="${line}"].current-hit`);
    await hit.waitFor();
    assert.equal(await hit.locator('mark.log-hit').innerText(), NEEDLE);
    assert.match(
      await hit.innerText(),
      new RegExp(`line ${line - 1}: processing item ${line - 1} ${NEEDLE} found here`),
    );

    // Many hits: counted in full; Enter walks them, Shift+Enter wraps around to the last.
    await input.fill('processing item 99999');
    await whole.locator('.log-count', { hasText: '1 of 11' }).waitFor();
    await whole.locator('.log-row[data-line="100000"].current-hit').waitFor();
    await input.press('Enter');
    await whole.locator('.log-row[data-line="999991"].current-hit').waitFor();
    await input.press('Shift+Enter');
    await input.press('Shift+Enter');
    assert.equal(await whole.locator('.log-count').innerText(), '11 of 11');
    await whole.locator('.log-row[data-line="1000000"].current-hit').waitFor();
    await input.fill('no such text anywhere');
    await whole.locator('.log-count', { hasText: 'No results' }).waitFor();

    // Scrolling far renders the rows there (fetched from the worker), still only a screenful.
    await whole.locator('.log-viewport').evaluate((el) => {
      el.scrollTop = 500_000 * 18;
      el.dispatchEvent(new Event('scroll'));
    });
    await whole.locator('.log-row[data-line="500001"]').waitFor();
    assert.ok((await whole.locator('.log-row').count()) < 200);
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, []);
    await page.close();
  });

  test('a side file the host cannot send is reported in the toolbar; the head and tail stay', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    await post(page, { type: 'trace', trace: makeSideLogTrace(LINES, 'gone') });
    assert.ok(await openWholeLog(page));
    await page.evaluate(() =>
      window.postMessage({ type: 'wholeLogError', phase: 'actor', message: 'Cannot read gone.logs/actor.log' }, '*'),
    );
    const alert = page.locator('.log-viewer[data-phase=actor] .whole-log-error');
    await alert.waitFor();
    assert.equal(await alert.innerText(), 'Cannot read gone.logs/actor.log');
    assert.equal(await page.locator('.log-viewer[data-phase=actor] .log-count').innerText(), '200 lines');
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, []);
    await page.close();
  });
});
