/**
 * Trace explorer bench: time to first render and time to a search result for
 * a trace with 100,000 log lines, in headless Chromium, on the page the
 * extension serves. Baselines measured in the same run: parsing the same JSON
 * alone, and rendering the small fixture trace. Then a whole log of
 * 1,000,000 lines from a side file: from the host's message with its bytes to
 * the first rows painted, and from typing a query to its first hit painted.
 * Prints JSON.
 *
 *   npx tsx bench/trace-explorer/run.ts [--lines N] [--runs N] [--whole-lines N]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { makeBigTrace, makeSideLogTrace, NEEDLE, sideLogBytesScript } from '../../test/fixtures/traces/bigTrace';
import { machineInfo } from '../support/machine';
import {
  buildExplorerBundle,
  fixturesDir,
  launchChromium,
  openPage,
  post,
  startExplorerServer,
} from '../../test/browser/harness';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const LINES = arg('--lines', 100_000);
const RUNS = arg('--runs', 5);
const WHOLE_LINES = arg('--whole-lines', 1_000_000);
const WHOLE_TARGETS = { openMs: 1500, firstMatchMs: 50 };

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const round = (n: number): number => Math.round(n * 10) / 10;

/** From posting the trace text to the first painted frame of the rendered page. */
function timeRender(page: Page, text: string): Promise<number> {
  return page.evaluate(
    (t) =>
      new Promise<number>((resolve) => {
        const start = performance.now();
        document.addEventListener(
          'hud-explorer-rendered',
          () => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start))),
          { once: true },
        );
        window.postMessage({ type: 'trace', trace: t }, '*');
      }),
    text,
  );
}

/** From typing the query to the hit count shown and the hit row painted. */
function timeSearch(page: Page, query: string): Promise<{ ms: number; count: string }> {
  return page.evaluate(
    (q) =>
      new Promise<{ ms: number; count: string }>((resolve) => {
        const input = document.querySelector<HTMLInputElement>('.log-viewer[data-phase=actor] input.log-search');
        const count = document.querySelector('.log-viewer[data-phase=actor] .log-count');
        if (!input || !count) throw new Error('no log search box');
        input.value = '';
        input.dispatchEvent(new Event('input'));
        const start = performance.now();
        input.value = q;
        input.dispatchEvent(new Event('input'));
        requestAnimationFrame(() => resolve({ ms: performance.now() - start, count: count.textContent ?? '' }));
      }),
    query,
  );
}

/**
 * A whole log: the side file's bytes are made in the page first (as the host
 * would have read them), then timed from posting them (the page copies the
 * message as it would VS Code's) to the first rows painted.
 */
async function timeWholeLogOpen(page: Page, lines: number): Promise<{ openMs: number; indexedMs: number }> {
  await post(page, { type: 'trace', trace: makeSideLogTrace(lines, 'big') });
  await page.getByTestId('whole-log-actor').click();
  await page.evaluate(`window.__sideLog = ${sideLogBytesScript(lines)}`);
  return page.evaluate(
    () =>
      new Promise<{ openMs: number; indexedMs: number }>((resolve) => {
        const start = performance.now();
        let openMs = 0;
        document.addEventListener(
          'hud-whole-log-shown',
          () => requestAnimationFrame(() => requestAnimationFrame(() => (openMs = performance.now() - start))),
          { once: true },
        );
        document.addEventListener(
          'hud-whole-log-indexed',
          () => requestAnimationFrame(() => resolve({ openMs, indexedMs: performance.now() - start })),
          { once: true },
        );
        const data = (window as unknown as { __sideLog: Uint8Array }).__sideLog;
        window.postMessage({ type: 'wholeLog', phase: 'actor', data }, '*');
      }),
  );
}

/** From typing a query in the whole log to its first hit's row in the DOM and painted. */
function timeWholeLogSearch(page: Page, query: string): Promise<{ ms: number; line: string }> {
  return page.evaluate(
    (q) =>
      new Promise<{ ms: number; line: string }>((resolve, reject) => {
        const viewer = document.querySelector('.log-viewer.whole-log[data-phase=actor]');
        const input = viewer?.querySelector<HTMLInputElement>('input.log-search');
        const rows = viewer?.querySelector('.log-rows');
        if (!input || !rows) return reject(new Error('no whole-log search box'));
        input.value = '';
        input.dispatchEvent(new Event('input'));
        const start = performance.now();
        // The worker answers asynchronously: the hit row arrives in a later mutation of the rows.
        const observer = new MutationObserver(() => {
          const hit = rows.querySelector<HTMLElement>('.log-row.current-hit');
          if (!hit) return;
          observer.disconnect();
          requestAnimationFrame(() => resolve({ ms: performance.now() - start, line: hit.dataset.line ?? '' }));
        });
        observer.observe(rows, { childList: true });
        input.value = q;
        input.dispatchEvent(new Event('input'));
      }),
    query,
  );
}

function timeJsonParse(page: Page, text: string): Promise<number> {
  return page.evaluate((t) => {
    const start = performance.now();
    JSON.parse(t);
    return performance.now() - start;
  }, text);
}

async function main(): Promise<void> {
  const bundle = await buildExplorerBundle();
  const server = await startExplorerServer(bundle.file);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const big = JSON.stringify(makeBigTrace(LINES));
    const small = readFileSync(join(fixturesDir, 'completed.hudtrace.json'), 'utf8');
    const samples = {
      jsonParse: [] as number[],
      smallRender: [] as number[],
      firstRender: [] as number[],
      searchCold: [] as number[],
      searchWarm: [] as number[],
    };
    let hitCount = '';
    for (let run = 0; run < RUNS; run++) {
      const { page, problems } = await openPage(browser, server.explorerUrl);
      samples.jsonParse.push(await timeJsonParse(page, big));
      samples.smallRender.push(await timeRender(page, small));
      await page.reload();
      await page.waitForSelector('body[data-state]');
      samples.firstRender.push(await timeRender(page, big));
      const cold = await timeSearch(page, NEEDLE);
      samples.searchCold.push(cold.ms);
      hitCount = cold.count;
      samples.searchWarm.push((await timeSearch(page, 'processing item 4242')).ms);
      if (problems.errors.length) throw new Error(`page errors: ${problems.errors.join('; ')}`);
      await page.close();
    }
    const whole = { open: [] as number[], indexed: [] as number[], firstMatch: [] as number[], matchLine: '' };
    for (let run = 0; run < Math.min(RUNS, 3); run++) {
      const { page, problems } = await openPage(browser, server.explorerUrl);
      const opened = await timeWholeLogOpen(page, WHOLE_LINES);
      whole.open.push(opened.openMs);
      whole.indexed.push(opened.indexedMs);
      const hit = await timeWholeLogSearch(page, NEEDLE);
      whole.firstMatch.push(hit.ms);
      whole.matchLine = hit.line;
      if (problems.errors.length || problems.cspViolations.length)
        throw new Error(`page problems: ${[...problems.errors, ...problems.cspViolations].join('; ')}`);
      await page.close();
    }
    const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, round(median(v))])) as Record<
      keyof typeof samples,
      number
    >;
    const result = {
      bench: 'trace-explorer',
      machine: machineInfo(),
      browser: browser.version(),
      lines: LINES,
      traceBytes: big.length,
      runs: RUNS,
      medianMs: {
        firstRender: m.firstRender,
        searchResult: m.searchCold,
        searchResultWarm: m.searchWarm,
        baselineJsonParse: m.jsonParse,
        baselineSmallTraceRender: m.smallRender,
      },
      ratios: {
        firstRenderVsJsonParse: round(m.firstRender / m.jsonParse),
        firstRenderVsSmallTraceRender: round(m.firstRender / m.smallRender),
        searchResultVsJsonParse: round(m.searchCold / m.jsonParse),
      },
      targets: { firstRenderUnder1000Ms: m.firstRender < 1000, searchResultUnder100Ms: m.searchCold < 100 },
      searchHitCount: hitCount,
      wholeLog: {
        lines: WHOLE_LINES,
        medianMs: {
          open: round(median(whole.open)),
          searchIndexReady: round(median(whole.indexed)),
          firstMatch: round(median(whole.firstMatch)),
        },
        samplesMs: {
          open: whole.open.map(round),
          searchIndexReady: whole.indexed.map(round),
          firstMatch: whole.firstMatch.map(round),
        },
        what: {
          open: 'host message with the side file bytes -> first rows painted',
          searchIndexReady: 'the same message -> the worker has built the search index (in the background)',
          firstMatch: 'query typed (index ready) -> the first hit row in the DOM and painted',
        },
        firstMatchLine: whole.matchLine,
        targets: {
          openUnder1500Ms: median(whole.open) < WHOLE_TARGETS.openMs,
          firstMatchUnder50Ms: median(whole.firstMatch) < WHOLE_TARGETS.firstMatchMs,
        },
      },
      samplesMs: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map(round)])),
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await browser?.close();
    await server.close();
    bundle.cleanup();
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
