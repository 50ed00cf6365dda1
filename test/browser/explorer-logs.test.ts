/**
 * Logs at scale and live: a 100,000-line phase is searchable with only a
 * screenful of rows in the DOM, and a running rollout updates as events arrive.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { RolloutEvent } from '../../common/events';
import { makeBigTrace, NEEDLE, needleLine } from '../fixtures/traces/bigTrace';
import { openPage, post, screenshotDir, useExplorerSession } from './harness';

const LINES = 100_000;

describe('trace explorer logs', () => {
  const session = useExplorerSession((s) => s.put('/big.hudtrace.json', JSON.stringify(makeBigTrace(LINES))));

  test('100,000 lines: few rows in the DOM, a search finds the one hit, next/prev walk the hits', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    const text = await (await fetch(`${session.server.origin}/big.hudtrace.json`)).text();
    await post(page, { type: 'trace', trace: text });
    const viewer = page.locator('.log-viewer[data-phase=actor]');
    assert.equal(await page.getByTestId('logs-tab-actor').innerText(), 'actor (100,000)');
    assert.equal(await viewer.locator('.log-count').innerText(), '100,000 lines');
    const rowsInDom = await viewer.locator('.log-row').count();
    assert.ok(rowsInDom > 10 && rowsInDom < 200, `only visible rows are in the DOM (${rowsInDom})`);

    await viewer.locator('input.log-search').fill(NEEDLE);
    assert.equal(await viewer.locator('.log-count').innerText(), '1 of 1');
    const line = needleLine(LINES) + 1;
    const hit = viewer.locator(`.log-row[data-line="${line}"]`);
    assert.ok(await hit.isVisible(), 'the hit row is scrolled into view');
    assert.match((await hit.getAttribute('class')) ?? '', /current-hit/);
    assert.equal(await hit.locator('mark.log-hit').innerText(), NEEDLE);
    assert.match(
      await hit.innerText(),
      new RegExp(`line ${line - 1}: processing item ${line - 1} ${NEEDLE} found here`),
    );
    assert.ok((await viewer.locator('.log-row').count()) < 200, 'still few rows after jumping');

    // A query with many hits: Enter / Shift+Enter / buttons walk them, wrapping around.
    const input = viewer.locator('input.log-search');
    await input.fill('processing item 4999');
    assert.equal(await viewer.locator('.log-count').innerText(), '1 of 11', '4999 and 49990..49999');
    assert.ok(await viewer.locator('.log-row[data-line="5000"].current-hit').isVisible());
    await input.press('Enter');
    assert.equal(await viewer.locator('.log-count').innerText(), '2 of 11');
    assert.ok(await viewer.locator('.log-row[data-line="49991"].current-hit').isVisible());
    await input.press('Shift+Enter');
    await input.press('Shift+Enter');
    assert.equal(await viewer.locator('.log-count').innerText(), '11 of 11');
    assert.ok(await viewer.locator('.log-row[data-line="50000"].current-hit').isVisible());
    await viewer.getByRole('button', { name: 'Next match' }).click();
    assert.equal(await viewer.locator('.log-count').innerText(), '1 of 11');
    await input.fill('no such text anywhere');
    assert.equal(await viewer.locator('.log-count').innerText(), 'No results');

    // Scrolling to the end renders the last lines, not the first.
    await viewer.locator('.log-viewport').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
      el.dispatchEvent(new Event('scroll'));
    });
    await page.waitForSelector(`.log-row[data-line="${LINES}"]`);
    assert.ok((await viewer.locator('.log-row').count()) < 200);
    await input.fill(NEEDLE);
    await page.locator('#section-logs').screenshot({ path: join(screenshotDir, 'logs-100k-search.png') });
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, []);
    await page.close();
  });

  test('a running rollout updates live from events', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    const rolloutId = 'r-live-1';
    const t0 = Date.now() - 5000;
    const at = (s: number) => new Date(t0 + s * 1000).toISOString();
    const task = {
      ref: 'envs/live/env.py::task',
      kind: 'hud' as const,
      env: 'live',
      id: 'count',
      args: { n: 3 },
      slug: 'count-1234abcd',
      sourceHash: 'h',
    };
    const send = (events: RolloutEvent[]) =>
      post(
        page,
        events.length === 1 ? { type: 'event', event: events[0] as RolloutEvent } : { type: 'events', events },
      );
    const waitText = (selector: string, text: string) =>
      page.waitForFunction(([s, t]) => document.querySelector(s)?.textContent?.includes(t) ?? false, [
        selector,
        text,
      ] as const);

    await send([
      { type: 'rollout.queued', rolloutId, at: at(0), taskRef: task.ref },
      { type: 'rollout.started', rolloutId, at: at(0), task, verifier: null },
      {
        type: 'phase.started',
        rolloutId,
        at: at(0.1),
        phase: 'actor',
        substrate: { id: 'pid 4242', provider: 'local', isolation: 'process' },
        reused: false,
      },
      { type: 'step', rolloutId, at: at(0.1), phase: 'actor', step: 'setup', status: 'started' },
    ]);
    await waitText('[data-testid=status]', 'running');
    await waitText('[data-testid=reward]', '—');
    assert.match(await page.getByTestId('step-actor-setup').innerText(), /setup running/);
    assert.match(await page.locator('#section-header').innerText(), /local pid 4242 · isolation: process/);

    // Log lines only: appended to the viewer without a full re-render.
    const marker = await page.evaluate(() => {
      const el = document.getElementById('section-header');
      if (el) el.dataset.marker = 'kept';
      return !!el;
    });
    assert.ok(marker);
    const logs: RolloutEvent[] = Array.from({ length: 500 }, (_, i) => ({
      type: 'log',
      rolloutId,
      at: at(0.2 + i / 1000),
      phase: 'actor',
      stream: i % 2 ? 'stderr' : 'stdout',
      text: `live line ${i}`,
    }));
    await send(logs);
    await waitText('[data-testid=logs-tab-actor]', '(500)');
    assert.equal(
      await page.locator('#section-header').getAttribute('data-marker'),
      'kept',
      'log lines do not rebuild the page',
    );
    assert.ok((await page.locator('.log-row').count()) < 200);

    // A search stays active and counts new lines as they arrive.
    await page.locator('input.log-search').fill('live line 49');
    assert.equal(await page.locator('.log-count').innerText(), '1 of 11');
    await send([{ type: 'log', rolloutId, at: at(1), phase: 'actor', stream: 'stdout', text: 'live line 49 again' }]);
    await waitText('.log-count', 'of 12');

    const scrollTop = () => page.locator('.log-viewport').evaluate((el) => el.scrollTop);
    const before = await scrollTop();
    assert.ok(before > 0, 'the search scrolled the log');
    await send([
      { type: 'step', rolloutId, at: at(1), phase: 'actor', step: 'setup', status: 'completed' },
      { type: 'prompt', rolloutId, at: at(1), prompt: { prompt: 'Count to three.' } },
      { type: 'agent.step', rolloutId, at: at(2), index: 1, text: 'one two three', toolCalls: [] },
      { type: 'answer', rolloutId, at: at(3), answer: '1 2 3' },
      {
        type: 'grade',
        rolloutId,
        at: at(4),
        phase: 'actor',
        result: { reward: 1, subscores: [{ name: 'counted', value: 1, weight: 1 }], info: {}, isError: false },
        raw: { score: 1 },
        authoritative: true,
      },
      { type: 'phase.ended', rolloutId, at: at(4.5), phase: 'actor', status: 'completed' },
    ]);
    await waitText('[data-testid=reward]', '1');
    assert.equal(await page.getByTestId('status').innerText(), 'running', 'graded but not ended yet');
    assert.equal(await page.getByTestId('prompt').innerText(), 'Count to three.');
    assert.equal(await page.locator('input.log-search').inputValue(), 'live line 49', 'search survives re-renders');
    assert.equal(await scrollTop(), before, 'log scroll position survives re-renders');

    await send([
      {
        type: 'rollout.ended',
        rolloutId,
        at: at(5),
        status: 'completed',
        reward: 1,
        result: { reward: 1, subscores: [{ name: 'counted', value: 1, weight: 1 }], info: {}, isError: false },
        tracePath: undefined,
        error: null,
      },
    ]);
    await waitText('[data-testid=status]', 'completed');
    assert.equal(await page.getByTestId('total-time').innerText(), 'total 5 s');
    assert.match(await page.getByTestId('step-actor-setup').innerText(), /setup 900 ms/);
    assert.deepEqual(
      await page
        .locator('#section-grade tr.sub-row')
        .evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.name)),
      ['counted'],
    );
    await page.screenshot({ path: join(screenshotDir, 'live.png'), fullPage: true });

    // Another rollout's log is ignored; its start replaces what is shown.
    await send([{ type: 'log', rolloutId: 'r-other', at: at(6), phase: 'actor', stream: 'stdout', text: 'not ours' }]);
    assert.equal(await page.getByTestId('logs-tab-actor').innerText(), 'actor (501)');
    await send([
      { type: 'rollout.started', rolloutId: 'r-next', at: at(7), task: { ...task, id: 'next' }, verifier: null },
    ]);
    await waitText('#section-header .tid', 'next');
    assert.equal(await page.getByTestId('status').innerText(), 'running');
    assert.equal(await page.locator('.log-row').count(), 0);
    assert.deepEqual(problems.errors, []);
    await page.close();
  });
});
