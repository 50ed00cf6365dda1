/**
 * A running rollout in the explorer as VS Code shows it: the host's `running`
 * message (a running trace is not a trace file), live events after it, and a
 * hidden panel that VS Code reloads coming back with its state from the
 * webview's getState/setState.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { RolloutEvent } from '../../common/events';
import { foldRolloutEvents } from '../../common/trace/fold';
import type { TaskIdentity } from '../../common/trace/schema';
import { post, useExplorerSession } from './harness';

const rolloutId = 'r-running-1';
const t0 = Date.now() - 5000;
const at = (s: number) => new Date(t0 + s * 1000).toISOString();
const task: TaskIdentity = {
  ref: 'envs/live/env.py::task',
  kind: 'hud',
  env: 'live',
  id: 'count',
  args: {},
  slug: 'count-1',
  sourceHash: 'h',
  source: 'async def count(): ...',
};
const soFar: RolloutEvent[] = [
  {
    type: 'rollout.queued',
    rolloutId,
    at: at(0),
    taskRef: task.ref,
    agent: { kind: 'nop' },
    provider: { kind: 'local' },
  },
  { type: 'rollout.started', rolloutId, at: at(0.1), task, verifier: null },
  {
    type: 'phase.started',
    rolloutId,
    at: at(0.2),
    phase: 'actor',
    substrate: { id: 'pid 7', provider: 'local', isolation: 'process' },
    reused: false,
  },
  { type: 'log', rolloutId, at: at(0.3), phase: 'actor', stream: 'stdout', text: 'first line' },
];

/**
 * Opens the page with a stand-in for VS Code's webview API: posted messages
 * are recorded, and the state lives in sessionStorage, which survives a reload
 * as VS Code's webview state survives the reload of a hidden panel.
 */
async function openInFakeWebview(page: Page, url: string): Promise<void> {
  // Plain script text: the test's own compiler must not add helpers the page does not have.
  await page.addInitScript(`
    window.__posted = [];
    window.__saves = 0;
    window.acquireVsCodeApi = function () {
      return {
        postMessage: function (m) { window.__posted.push(m); },
        getState: function () {
          var s = sessionStorage.getItem('webview-state');
          return s === null ? undefined : JSON.parse(s);
        },
        setState: function (s) {
          window.__saves++;
          // The page saves undefined when it has nothing to bring back (no trace yet): that clears the state.
          if (s === undefined) sessionStorage.removeItem('webview-state');
          else sessionStorage.setItem('webview-state', JSON.stringify(s));
        },
      };
    };
  `);
  await page.goto(url);
  await page.waitForSelector('body[data-state]', { state: 'attached' });
}

const posted = (page: Page) => page.evaluate(() => (window as unknown as { __posted: { type: string }[] }).__posted);
const saves = (page: Page) => page.evaluate(() => (window as unknown as { __saves: number }).__saves);

describe('trace explorer: a running rollout', () => {
  const session = useExplorerSession();

  test('the running message shows a rollout in progress; the finished-trace message refuses it', async () => {
    const page = await session.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openInFakeWebview(page, session.server.explorerUrl);
    const running = foldRolloutEvents(soFar);

    await post(page, { type: 'running', trace: running });
    assert.equal(await page.locator('body').getAttribute('data-state'), 'trace');
    assert.equal(await page.getByTestId('status').innerText(), 'running');
    assert.equal(await page.getByTestId('logs-tab-actor').innerText(), 'actor (1)');

    // Live events continue the running trace the message started.
    await post(page, {
      type: 'event',
      event: { type: 'log', rolloutId, at: at(1), phase: 'actor', stream: 'stdout', text: 'second line' },
    });
    await page.waitForFunction(
      () => document.querySelector('[data-testid=logs-tab-actor]')?.textContent === 'actor (2)',
    );

    // A running trace is not a trace file: sent as one, it is an error, as the schema says.
    await post(page, { type: 'trace', trace: running });
    assert.match(await page.getByTestId('load-error').innerText(), /status/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a hidden panel reloaded by VS Code comes back with its state before the host answers', async () => {
    const page = await session.browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await openInFakeWebview(page, session.server.explorerUrl);
    assert.deepEqual(await posted(page), [{ type: 'ready' }]);

    await post(page, { type: 'running', trace: foldRolloutEvents(soFar) });
    await post(page, {
      type: 'events',
      events: [
        { type: 'log', rolloutId, at: at(1), phase: 'actor', stream: 'stdout', text: 'second line' },
        { type: 'prompt', rolloutId, at: at(1.1), prompt: { prompt: 'Count to three.' } },
      ],
    });
    const before = await saves(page);
    await page.locator('details[data-key="task-source"] > summary').click();
    // Saves are debounced, and the one the events scheduled may land before or after the click's
    // toggle: wait for a save that holds the opened section, whichever save that is.
    await page.waitForFunction(() => {
      const s = sessionStorage.getItem('webview-state');
      return s !== null && (JSON.parse(s) as { open?: string[] }).open?.includes('task-source') === true;
    });
    assert.ok((await saves(page)) > before, 'opening the section saved the state');

    // VS Code unloads a hidden webview and loads it again when it is shown.
    await page.reload();
    await page.waitForSelector('body[data-state=trace]', { state: 'attached' });
    assert.deepEqual(await posted(page), [{ type: 'ready' }], 'the reloaded page asks the host again');
    assert.equal(await page.getByTestId('status').innerText(), 'running');
    assert.equal(await page.getByTestId('logs-tab-actor').innerText(), 'actor (2)', 'what was shown is back at once');
    assert.equal(
      await page.locator('details[data-key="task-source"]').evaluate((d) => (d as HTMLDetailsElement).open),
      true,
    );

    // The host answers `ready` with the rollout so far, which has moved on meanwhile.
    const moved: RolloutEvent[] = [
      ...soFar,
      { type: 'log', rolloutId, at: at(1), phase: 'actor', stream: 'stdout', text: 'second line' },
      { type: 'log', rolloutId, at: at(2), phase: 'actor', stream: 'stdout', text: 'while hidden' },
    ];
    await post(page, { type: 'running', trace: foldRolloutEvents(moved) });
    assert.equal(await page.getByTestId('logs-tab-actor').innerText(), 'actor (3)');
    assert.equal(await page.locator('[data-testid=load-error]').count(), 0);
    assert.equal(
      await page.locator('details[data-key="task-source"]').evaluate((d) => (d as HTMLDetailsElement).open),
      true,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
