/**
 * The job view in headless Chromium, served with its real page and CSP: the
 * per-model table, the task x model heat map, a cell click that asks the host
 * to open that cell's rollout, and a hostile job file rendered as inert text.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import type { Browser } from 'playwright-core';
import { summarizeModels } from '../../client/src/engine/jobModels';
import { jobViewData, makeNonce, renderJobViewHtml } from '../../client/src/jobView/page';
import { launchChromium, openPage, repoRoot } from './harness';

const EVIL = '<img src=x onerror="window.__pwned=1">';
const run = (model: string, reward: number, trace: string) => ({
  model,
  status: 'completed',
  reward,
  error: null,
  trace,
  tokens: { input: 100, output: 10, cached: 0 },
  startedAt: '2026-11-30T10:00:00.000Z',
  endedAt: '2026-11-30T10:00:02.000Z',
});

function job(): unknown {
  const models = ['openai-compatible/good', `anthropic/${EVIL}`];
  const tasks = [
    {
      ref: 'env.py::number',
      runs: [run(models[0]!, 1, '/t/a.hudtrace.json'), run(models[1]!, 0, '/t/b.hudtrace.json')],
    },
    {
      ref: `env.py::${EVIL}`,
      runs: [run(models[0]!, 1, '/t/c.hudtrace.json'), run(models[1]!, 0.5, '/t/d.hudtrace.json')],
    },
  ];
  return {
    jobId: 'job-1234567890',
    startedAt: '2026-11-30T10:00:00.000Z',
    k: 1,
    threshold: 1,
    ...summarizeModels(tasks, models, 1, 1),
  };
}

describe('job view', () => {
  let browser: Browser;
  let server: Server;
  let origin = '';
  let bundleDir = '';
  before(async () => {
    bundleDir = mkdtempSync(join(tmpdir(), 'hud-jobview-'));
    await esbuild.build({
      bundle: true,
      platform: 'browser',
      target: 'es2022',
      format: 'iife',
      logLevel: 'warning',
      entryPoints: { jobView: join(repoRoot, 'media/src/jobView/main.ts') },
      outdir: bundleDir,
      loader: { '.css': 'text' },
    });
    server = createServer((req, res) => {
      if (req.url === '/jobView.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' });
        return void res.end(readFileSync(join(bundleDir, 'jobView.js')));
      }
      if (req.url === '/job.html') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return void res.end(
          renderJobViewHtml({
            cspSource: origin,
            scriptUri: `${origin}/jobView.js`,
            nonce: makeNonce(),
            data: jobViewData(job()),
          }),
        );
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    if (addr === null || typeof addr === 'string') throw new Error('no TCP address');
    origin = `http://127.0.0.1:${addr.port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    rmSync(bundleDir, { recursive: true, force: true });
  });

  test('per-model table and heat map; a cell opens its rollout; hostile names stay text', async () => {
    const { page, problems } = await openPage(browser, `${origin}/job.html`);
    assert.equal(await page.evaluate(() => document.body.dataset['state']), 'ready');
    const models = await page.locator('[data-testid=models] tr').allInnerTexts();
    assert.equal(models.length, 3);
    assert.match(models[1]!, /openai-compatible\/good\s+2\s+1\.00\s+100%\s+100%\s+0\/0\/0\s+200\/20 \(0\)\s+2\.0 s/);
    assert.ok(models[2]!.includes(`anthropic/${EVIL}`), 'the model name is shown literally');
    const cells = page.getByTestId('cell');
    assert.deepEqual(await cells.allInnerTexts(), ['1.00', '0.00', '1.00', '0.50']);
    const colours = await cells.evaluateAll((bs) => bs.map((b) => getComputedStyle(b).backgroundColor));
    assert.notEqual(colours[0], colours[1], 'reward 1 and 0 differ in colour');
    await cells.nth(3).click();
    const outbox = await page.evaluate(() => window.hudJobOutbox);
    assert.deepEqual(outbox, [{ type: 'openTraces', traces: ['/t/d.hudtrace.json'] }]);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
    assert.equal(await page.locator('#app img, #app script').count(), 0, 'no markup from the job file');
    assert.deepEqual(problems, { errors: [], cspViolations: [] });
    await page.close();
  });

  test("a row's compare control asks for two models' rollouts of that task side by side", async () => {
    const { page, problems } = await openPage(browser, `${origin}/job.html`);
    const rows = page.locator('[data-testid=heatmap] tr');
    await rows.nth(1).getByTestId('compare-models').click();
    // The other order, picked in the two lists.
    await rows
      .nth(2)
      .getByLabel(/model A$/)
      .selectOption({ index: 1 });
    await rows
      .nth(2)
      .getByLabel(/model B$/)
      .selectOption({ index: 0 });
    await rows.nth(2).getByTestId('compare-models').click();
    // The same model on both sides asks for nothing.
    await rows
      .nth(2)
      .getByLabel(/model B$/)
      .selectOption({ index: 1 });
    await rows.nth(2).getByTestId('compare-models').click();
    const good = 'openai-compatible/good';
    const evil = `anthropic/${EVIL}`;
    assert.deepEqual(await page.evaluate(() => window.hudJobOutbox), [
      {
        type: 'compareModels',
        task: 'env.py::number',
        left: { model: good, trace: '/t/a.hudtrace.json' },
        right: { model: evil, trace: '/t/b.hudtrace.json' },
      },
      {
        type: 'compareModels',
        task: `env.py::${EVIL}`,
        left: { model: evil, trace: '/t/d.hudtrace.json' },
        right: { model: good, trace: '/t/c.hudtrace.json' },
      },
    ]);
    assert.equal(await page.locator('#app img, #app script').count(), 0, 'model names in the lists are text');
    assert.deepEqual(problems, { errors: [], cspViolations: [] });
    await page.close();
  });
});
