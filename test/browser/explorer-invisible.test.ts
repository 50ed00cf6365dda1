/**
 * Text that hides itself: bidirectional overrides and other invisible
 * formatting characters in any field are shown as visible escapes, and a
 * result nested thousands of levels deep renders (collapsed) instead of an
 * error panel.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fixture, openPage, post, useExplorerSession } from './harness';

const RLO = '\u202e';
const ISOLATE = '\u2066';
const ZWSP = '\u200b';

/** JSON text nested `depth` levels (built as text: Node's own JSON.stringify overflows its stack on it). */
function nestedJson(depth: number): string {
  return '[{"k":'.repeat(depth / 2) + '"bottom"' + '}]'.repeat(depth / 2);
}

/** The trace as the host posts it: the file's text. */
function traceText(depth: number): string {
  type Shape = {
    answer: unknown;
    actorResult: unknown;
    result: { subscores: { name: string }[]; info: unknown };
    phases: { logs: { text: string }[] }[];
  };
  const t = structuredClone(fixture('injected.hudtrace.json')) as Shape;
  t.answer = `paid ${RLO}dias ton${ISOLATE} end`;
  t.result.subscores[0]!.name = `score${ZWSP}hidden`;
  t.result.info = { deep: '__DEEP__' };
  t.actorResult = '__DEEP__';
  t.phases[0]!.logs[0]!.text = `LOG1 ${RLO}evil`;
  return JSON.stringify(t).replaceAll('"__DEEP__"', nestedJson(depth));
}

describe('trace explorer with invisible characters and deep nesting', () => {
  const session = useExplorerSession();

  for (const depth of [400, 20_000]) {
    test(`bidi overrides and zero-width characters show as escapes; a result ${depth} levels deep renders`, async () => {
      const { page, problems } = await openPage(session.browser, session.server.explorerUrl);
      await post(page, { type: 'trace', trace: traceText(depth) } as never);
      await page.waitForSelector('body[data-state=trace]');
      const panels = await page.locator('.problem.error').allInnerTexts();
      assert.ok(
        !panels.some((p) => /could not show|not valid|Maximum call stack/i.test(p)),
        `no error panel: ${panels.join(' | ')}`,
      );
      assert.equal(await page.getByTestId('rollout-error').count(), 1, 'the trace itself rendered');
      const answer = await page.getByTestId('answer').innerText();
      assert.ok(answer.includes('paid [U+202E]dias ton[U+2066] end'), answer);
      const body = await page.evaluate(() => document.body.innerText);
      assert.ok(
        !body.includes(RLO) && !body.includes(ISOLATE) && !body.includes(ZWSP),
        'no invisible character reaches the page',
      );
      assert.ok(!body.includes('[object Object]'), 'the deep value is shown as JSON, not as [object Object]');
      const all = await page.evaluate(() => document.body.textContent ?? '');
      assert.ok(
        all.includes('nested deeper than 48 levels, not shown'),
        'levels past the limit are folded into a marker',
      );
      assert.equal(
        await page.locator('details[data-key="actor-result"]').getAttribute('open'),
        null,
        'the deep frame starts collapsed',
      );
      const label = await page.locator('#section-grade tr.sub-row .sub-label').first().innerText();
      assert.equal(label, 'score[U+200B]hidden');
      const row = page.locator('.log-viewer[data-phase=actor] .log-row[data-line="1"] .log-text');
      assert.equal(await row.innerText(), 'LOG1 [U+202E]evil');
      assert.deepEqual(problems.errors, []);
      await page.close();
    });
  }
});
