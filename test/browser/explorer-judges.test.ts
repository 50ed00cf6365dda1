/**
 * Judge calls under their subscore (docs/models.md): a judge's calls are
 * listed right under the subscore they graded, as inert text on the CSP
 * page; a criterion's own subscore (the SDK's layout) wins over the judge's
 * list; calls that match no subscore are shown apart; and calls arriving as
 * live events appear as they happen.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { JudgeCall, Trace } from '../../common/trace/schema';
import { fixture, openPage, post, screenshotDir, useExplorerSession } from './harness';

const IMG = '<img src=x onerror="window.__pwned=1">';

const call = (criterion: string, verdict: string, reason: string, extra: Partial<JudgeCall> = {}): JudgeCall => ({
  phase: 'verifier',
  at: '2026-11-29T10:00:10.000Z',
  model: 'openai/judge-mini',
  status: 200,
  criterion,
  verdict,
  reason,
  tokens: { input: 50, output: 8 },
  durationMs: 120,
  ...extra,
});

/** The completed fixture with two judges: the bundled runtime's (criteria in its details) and the SDK's layout. */
function judgedTrace(): Trace {
  const trace = fixture('completed.hudtrace.json') as Trace;
  trace.result!.subscores.push(
    {
      name: 'LLMJudgeGrader',
      value: 0.5,
      weight: 1,
      metadata: {
        model: 'judge-mini',
        criteria: [
          { requirement: 'Mentions scattering', weight: 1, verdict: 'MET', met: true },
          { requirement: `Quotes ${IMG}`, weight: 1, verdict: 'UNMET', met: false },
        ],
      },
    },
    {
      name: 'rubric',
      value: 1,
      weight: 1,
      children: [{ name: 'Is polite', value: 1, weight: 1 }],
      metadata: { _parameters: { criteria: ['Is polite'] } },
    },
  );
  trace.judgeCalls = [
    call('Mentions scattering', 'MET', 'it names Rayleigh scattering'),
    call(`Quotes ${IMG}`, 'UNMET', `no quote <script>window.__pwned=1</script>`),
    call('Is polite', 'MET', 'says please'),
    call('Unrelated criterion', 'UNMET', 'nothing', { status: 502 }),
  ];
  return trace;
}

async function callsUnder(page: Page, subscore: string): Promise<string[]> {
  return page.locator(`#section-grade tr.sub-judges[data-name="${subscore}"] li.judge-call`).allInnerTexts();
}

describe('trace explorer: judge calls under their subscore', () => {
  const session = useExplorerSession();

  test('each call under the subscore it graded, escaped, with model, criterion, verdict, reason and tokens', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    await post(page, { type: 'trace', trace: judgedTrace() });
    const judge = await callsUnder(page, 'LLMJudgeGrader');
    assert.equal(judge.length, 2);
    assert.match(
      judge[0]!,
      /judge openai\/judge-mini · Mentions scattering MET it names Rayleigh scattering · tokens in 50 out 8/,
    );
    assert.ok(judge[1]!.includes(`Quotes ${IMG}`) && judge[1]!.includes('UNMET'), judge[1]);
    assert.ok(judge[1]!.includes('no quote <script>window.__pwned=1</script>'), 'the reason is shown as text');
    // The row sits right under its subscore's row.
    const next = await page.locator('#section-grade tr.sub-row[data-name="LLMJudgeGrader"] + tr').getAttribute('class');
    assert.equal(next, 'sub-judges');
    // The SDK's layout: the criterion's own subscore (a child) holds the call once its parent is open.
    assert.deepEqual(await callsUnder(page, 'rubric'), []);
    await page.locator('#section-grade tr.sub-row[data-name="rubric"] [data-testid=toggle-children]').click();
    assert.match((await callsUnder(page, 'Is polite')).join('\n'), /Is polite MET says please/);
    // A call no subscore names is listed apart, with its HTTP status.
    const apart = await page.getByTestId('judge-calls-unplaced').innerText();
    assert.match(apart, /Unrelated criterion/);
    assert.match(apart, /HTTP 502/);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned), undefined);
    assert.equal(await page.locator('#section-grade img, #section-grade script').count(), 0);
    await page.screenshot({ path: join(screenshotDir, 'judge-calls.png'), fullPage: true });
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, []);
    await page.close();
  });

  test('live judge.call events appear under the subscore; a malformed one is ignored', async () => {
    const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
    const at = new Date().toISOString();
    const rolloutId = 'r-live-judge';
    const task = { ref: 'x.py::t', kind: 'hud', env: 'e', id: 'i', args: {}, slug: 's', sourceHash: 'h' };
    const result = {
      reward: 1,
      subscores: [
        { name: 'LLMJudgeGrader', value: 1, weight: 1, metadata: { criteria: [{ requirement: 'Is short' }] } },
      ],
      info: {},
      isError: false,
    };
    await post(page, {
      type: 'events',
      events: [
        { type: 'rollout.started', rolloutId, at, task, verifier: null },
        { type: 'phase.started', rolloutId, at, phase: 'actor', substrate: null, reused: false },
        { type: 'judge.call', rolloutId, at, call: call('Is short', 'MET', 'one line') },
        { type: 'judge.call', rolloutId, at, call: { model: { html: IMG } } },
        { type: 'grade', rolloutId, at, phase: 'actor', result, raw: {}, authoritative: true },
      ],
    } as never);
    await page.locator('tr.sub-judges').waitFor();
    assert.deepEqual(
      (await callsUnder(page, 'LLMJudgeGrader')).map((t) => t.replace(/\s+/g, ' ')),
      ['judge openai/judge-mini · Is short MET one line · tokens in 50 out 8'],
    );
    assert.deepEqual(problems.errors, []);
    assert.deepEqual(problems.cspViolations, []);
    await page.close();
  });
});
