/**
 * The trace explorer as a person sees it, in headless Chromium, on the page
 * the extension serves (strict CSP): header and reward, phases, subscores and
 * penalties, errors first, compare view, host messages both ways.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { fixture, openPage, post, screenshotDir, type PageProblems, useExplorerSession } from './harness';

describe('trace explorer', () => {
  const session = useExplorerSession();

  async function open(message: Parameters<typeof post>[1]): Promise<{ page: Page; problems: PageProblems }> {
    const opened = await openPage(session.browser, session.server.explorerUrl);
    await post(opened.page, message);
    return opened;
  }
  const clean = (p: PageProblems): void => {
    assert.deepEqual(p.errors, [], 'no page errors');
    assert.deepEqual(p.cspViolations, [], 'no CSP violations');
  };

  test('a completed rollout: reward, header, phases, prompt, answer, agent steps', async () => {
    const { page, problems } = await open({ type: 'trace', trace: fixture('completed.hudtrace.json') });
    assert.equal(await page.getByTestId('reward').innerText(), '0.75');
    assert.equal(await page.getByTestId('status').innerText(), 'completed');
    const header = await page.locator('#section-header').innerText();
    for (const text of [
      'workspace',
      'solve',
      'solve-3f2a9c1b',
      '"target": "/tmp/secret"',
      'judge/verify',
      'docker',
      'reward (verifier)',
      'total 11.5 s',
    ]) {
      assert.ok(header.includes(text), `header shows ${text}`);
    }
    assert.equal(await page.getByTestId('verifier-substrate').innerText(), 'a fresh substrate');
    await page.locator('details[data-key=task-source] summary').click();
    assert.match(await page.getByTestId('task-source').innerText(), /@actor\.template\(id="solve"\)/);
    // Phases with their steps and durations.
    assert.match(await page.getByTestId('phase-actor').innerText(), /actor\s+8\.9 s · completed/);
    const actorSteps = await page.locator('[data-testid=phase-actor] .tl-chip-name').allInnerTexts();
    assert.deepEqual(actorSteps, ['setup', 'prompt', 'agent', 'answer', 'grade', 'teardown']);
    assert.equal(await page.getByTestId('step-actor-setup').innerText(), 'setup 1.2 s');
    assert.deepEqual(await page.locator('[data-testid=phase-verifier] .tl-chip-name').allInnerTexts(), [
      'setup',
      'grade',
    ]);
    assert.equal(await page.getByTestId('step-verifier-grade').innerText(), 'grade 1.95 s');
    assert.equal(
      await page.getByTestId('prompt').innerText(),
      'Write the secret to the target system.\nThe target is /tmp/secret.',
    );
    assert.match(await page.getByTestId('answer').innerText(), /secret: hunter2/);
    // Agent steps expand to their tool calls; a failed tool call is marked.
    await page.getByTestId('agent-step-2').click();
    const step2 = await page.locator('details[data-key="agent-2"]').innerText();
    assert.match(step2, /echo hunter2 > \/tmp\/secret/);
    assert.match(step2, /Permission denied/);
    assert.equal(await page.locator('details[data-key="agent-2"] .tool-call.is-error').count(), 1);
    assert.equal(await page.locator('.problem').count(), 0, 'no error banner for a completed rollout');
    await page.screenshot({ path: join(screenshotDir, 'completed.png'), fullPage: true });
    clean(problems);
    await page.close();
  });

  test('subscores: rows, weight-scaled bars, penalties, nested children and grader metadata', async () => {
    const { page, problems } = await open({ type: 'trace', trace: fixture('completed.hudtrace.json') });
    const table = page.locator('#section-grade table[data-testid=subscores]').first();
    const rows = table.locator('tr.sub-row');
    assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.name)), [
      'file_exists',
      'answer_match',
      'any_format',
      'used_rm_rf',
    ]);
    const penalty = table.locator('tr.sub-row[data-name=used_rm_rf]');
    assert.match(await penalty.innerText(), /penalty/);
    assert.match(await penalty.locator('.contribution').innerText(), /^−0\.25$/);
    assert.equal(await penalty.locator('.bar.penalty').count(), 1);
    assert.equal(await table.locator('tr.sub-row[data-name=file_exists] .contribution').innerText(), '+0.4');
    // Bar length follows the weight: 0.4 is twice 0.2.
    const width = (name: string) =>
      table.locator(`tr.sub-row[data-name=${name}] .bar`).evaluate((el) => el.getBoundingClientRect().width);
    const [w04, w02] = [await width('file_exists'), await width('any_format')];
    assert.ok(Math.abs(w04 / w02 - 2) < 0.05, `bar widths ${w04} vs ${w02}`);
    // combine_any children appear on expand, indented under their parent.
    assert.equal(await table.locator('tr[data-name=json_format]').count(), 0);
    await table.locator('tr[data-name=any_format]').getByTestId('toggle-children').click();
    assert.deepEqual(
      await table
        .locator('tr.sub-row[data-depth="1"]')
        .evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.name)),
      ['json_format', 'plain_format'],
    );
    // BashGrader metadata on expand.
    await table.locator('tr[data-name=file_exists]').getByTestId('toggle-metadata').click();
    const meta = await table.locator('tr.sub-meta').innerText();
    assert.match(meta, /exit_code\s+0/);
    assert.match(meta, /stdout\s+found\s+hunter2/);
    assert.match(meta, /timed_out\s+false/);
    await page.screenshot({ path: join(screenshotDir, 'subscores-expanded.png'), fullPage: true });
    clean(problems);
    await page.close();
  });

  test('an errored rollout shows the failing phase and message first, and no reward', async () => {
    const { page, problems } = await open({ type: 'trace', trace: fixture('errored.hudtrace.json') });
    const first = page.locator('.explorer > .page > *').first();
    assert.equal(await first.getAttribute('id'), 'section-problems', 'errors come before everything else');
    const banner = page.getByTestId('rollout-error');
    assert.match(await banner.innerText(), /Failed in the verifier phase/);
    assert.match(await banner.innerText(), /KeyError: 'answer'/);
    assert.match(await banner.innerText(), /step grade failed: KeyError: 'answer'/);
    assert.equal(await page.getByTestId('reward').innerText(), '—');
    assert.match(await page.locator('.reward-label').innerText(), /errored, ungraded/);
    assert.equal(await page.getByTestId('status').innerText(), 'error');
    assert.equal(await page.locator('[data-testid=phase-verifier] .tl-chip.st-error').count(), 1);
    assert.match(await page.locator('#section-grade').innerText(), /No grade of record/);
    await page.screenshot({ path: join(screenshotDir, 'errored.png'), fullPage: true });
    clean(problems);
    await page.close();
  });

  test('clicking a step jumps to what it produced', async () => {
    const { page, problems } = await open({ type: 'trace', trace: fixture('completed.hudtrace.json') });
    await page.getByTestId('step-verifier-setup').click();
    assert.equal(await page.getByTestId('logs-tab-verifier').getAttribute('aria-selected'), 'true');
    assert.match(
      await page.locator('.log-viewer[data-phase=verifier] .log-row').first().innerText(),
      /acquiring a fresh substrate/,
    );
    await page.getByTestId('step-actor-grade').click();
    await page.waitForFunction(() => document.getElementById('section-grade')?.classList.contains('flash'));
    const { top, height, scrolled } = await page
      .locator('#section-grade')
      .evaluate((el) => ({ top: el.getBoundingClientRect().top, height: innerHeight, scrolled: scrollY }));
    assert.ok(
      scrolled > 0 && top >= 0 && top < height / 2,
      `grade section scrolled into view (top=${top}, scrollY=${scrolled})`,
    );
    // An agent step's tick on the actor track opens that step.
    await page.getByTestId('tick-agent-1').click();
    assert.equal(
      await page.locator('details[data-key="agent-1"]').evaluate((d) => (d as HTMLDetailsElement).open),
      true,
    );
    assert.ok(await page.locator('details[data-key="agent-1"] .tool-call').first().isVisible());
    clean(problems);
    await page.close();
  });

  test('logs: stdout and stderr told apart, ANSI colours as styled text', async () => {
    const { page, problems } = await open({ type: 'trace', trace: fixture('completed.hudtrace.json') });
    const viewer = page.locator('.log-viewer[data-phase=actor]');
    assert.equal(await page.getByTestId('logs-tab-actor').innerText(), 'actor (36)');
    const err = viewer.locator('.log-row[data-line="6"]');
    assert.match((await err.getAttribute('class')) ?? '', /stream-stderr/);
    assert.equal(await err.locator('.log-stream').innerText(), 'err');
    assert.match(await err.innerText(), /WARNING: the target directory already exists/);
    assert.equal(await viewer.locator('.log-row[data-line="2"] .ansi-32').innerText(), 'INFO');
    assert.equal(await viewer.locator('.log-row[data-line="2"] .ansi-bold').innerText(), 'workspace');
    const colour = await viewer
      .locator('.log-row[data-line="12"] .ansi-31.ansi-bold')
      .evaluate((el) => getComputedStyle(el).fontWeight);
    assert.equal(colour, '700');
    // A multi-line log entry becomes several rows.
    assert.match(await viewer.locator('.log-row[data-line="9"]').innerText(), /drwxrwxrwt/);
    clean(problems);
    await page.close();
  });

  test('compare two rollouts of the same task: rewards, subscores and an answer diff', async () => {
    const { page, problems } = await open({
      type: 'compare',
      left: fixture('completed.hudtrace.json'),
      right: JSON.stringify(fixture('compare-b.hudtrace.json')),
    });
    assert.equal(await page.getByTestId('compare-left').getByTestId('reward').innerText(), '0.75');
    assert.equal(await page.getByTestId('compare-right').getByTestId('reward').innerText(), '0.6');
    assert.equal(await page.getByTestId('reward-delta').locator('.delta').innerText(), '−0.15');
    const subs = page.getByTestId('compare-subscores');
    assert.match(await subs.locator('tr[data-name=answer_match]').innerText(), /1 × 0\.4\s+0 × 0\.4\s+−0\.4$/);
    assert.match(await subs.locator('tr[data-name="any_format › json_format"]').innerText(), /\+1$/);
    assert.match(await subs.locator('tr[data-name=file_exists]').innerText(), /=$/);
    // The penalty no longer applies in B: a gain.
    assert.match(
      await subs.locator('tr[data-name=used_rm_rf]').innerText(),
      /penalty\s+1 × -0\.25\s+0 × -0\.25\s+\+0\.25$/,
    );
    const diff = page.getByTestId('answer-diff');
    assert.deepEqual(await diff.locator('.diff-line.del .diff-text').allInnerTexts(), [
      'I wrote the secret to /tmp/secret.',
      'secret: hunter2',
      'format: plain',
    ]);
    assert.deepEqual(await diff.locator('.diff-line.add .diff-text').allInnerTexts(), [
      'The secret is in /tmp/secret.',
      'secret: hunter3',
      'format: json',
    ]);
    assert.equal(await page.locator('.compare .problem').count(), 0, 'same task: no warning');
    await page.screenshot({ path: join(screenshotDir, 'compare.png'), fullPage: true });
    clean(problems);
    await page.close();
  });

  test('a regrade beside its original: which side regraded, the grader, the reward before and after', async () => {
    const original = fixture('completed.hudtrace.json') as { rolloutId: string; task: { sourceHash: string } };
    const regrade = {
      ...(fixture('compare-b.hudtrace.json') as object),
      rolloutId: 'regrade-0001',
      regrade: { of: original.rolloutId, graderHash: 'feedface00112233' },
    };
    const { page, problems } = await open({ type: 'compare', left: original, right: regrade });
    const banner = await page.getByTestId('regrade-of').innerText();
    assert.match(
      banner,
      /B graded A's recorded answer again with the grader as it is now \(grader feedface0011\): reward 0\.75 -> 0\.6/,
    );
    assert.equal(await page.locator('.compare .problem.warning').count(), 0, 'a regrade is no reason to warn');
    assert.match(
      await page.getByTestId('compare-subscores').locator('tr[data-name=answer_match]').innerText(),
      /−0\.4$/,
    );
    clean(problems);
    await page.close();
  });

  test('a stale rollout: the banner the host sends names the change and asks for the template diff', async () => {
    const trace = fixture('completed.hudtrace.json') as { rolloutId: string };
    const { page, problems } = await open({ type: 'trace', trace });
    assert.equal(await page.getByTestId('stale').count(), 0);
    await post(page, { type: 'stale', rolloutId: trace.rolloutId, text: 'verifier changed' });
    assert.match(await page.getByTestId('stale').innerText(), /stale .* ran an older version: verifier changed\./);
    await page.getByTestId('show-template-diff').click();
    assert.deepEqual(await page.evaluate(() => window.hudExplorerOutbox?.at(-1)), {
      type: 'showTemplateDiff',
      rolloutId: trace.rolloutId,
    });
    await post(page, { type: 'stale', rolloutId: trace.rolloutId, text: null });
    assert.equal(await page.getByTestId('stale').count(), 0, 'current again: the banner goes');
    clean(problems);
    await page.close();
  });

  test('a Harbor trial: separate verifier environment, reward.json metrics, trial folder', async () => {
    const { page, problems } = await open({ type: 'trace', trace: fixture('harbor-separate.hudtrace.json') });
    assert.equal(await page.getByTestId('reward').innerText(), '1');
    const header = await page.locator('#section-header').innerText();
    assert.match(header, /Harbor verifier\s+separate environment/);
    assert.match(header, /org\/hello-world/);
    assert.deepEqual(await page.locator('[data-testid=phase-verifier] .tl-chip-name').allInnerTexts(), [
      'setup',
      'verify',
    ]);
    assert.match(await page.locator('.harbor-rewards').innerText(), /reward\s+1\s+tests_passed\s+3/);
    await page.locator('#section-header button.link', { hasText: '/work/.hud-studio/trials/hello-world-1' }).click();
    assert.deepEqual(await page.evaluate(() => window.hudExplorerOutbox?.at(-1)), {
      type: 'openFile',
      path: '/work/.hud-studio/trials/hello-world-1',
    });
    await page.screenshot({ path: join(screenshotDir, 'harbor.png'), fullPage: true });
    clean(problems);
    await page.close();
  });

  test('bad input is shown as an error naming the field, not a crash', async () => {
    const { page, problems } = await open({ type: 'trace', trace: '{"schemaVersion": 1, "rolloutId": 5}' });
    assert.match(await page.getByTestId('load-error').innerText(), /not a HUD Studio trace: rolloutId/);
    await post(page, { type: 'trace', trace: '{not json' });
    assert.match(await page.getByTestId('load-error').innerText(), /not valid JSON/);
    await post(page, { type: 'trace', trace: fixture('completed.hudtrace.json') });
    assert.equal(await page.getByTestId('reward').innerText(), '0.75');
    clean(problems);
    await page.close();
  });

  test('the page tells the host it is ready and asks it to open the task', async () => {
    const { page, problems } = await open({ type: 'trace', trace: fixture('completed.hudtrace.json') });
    await page.locator('#section-header button.link', { hasText: 'envs/secret/env.py::task' }).click();
    const outbox = await page.evaluate(() => window.hudExplorerOutbox);
    assert.deepEqual(outbox, [{ type: 'ready' }, { type: 'openTask', ref: 'envs/secret/env.py::task' }]);
    clean(problems);
    await page.close();
  });

  test('the development page loads ?trace= and &compare= from the server', async () => {
    const base = `${session.server.origin}/media/dev/index.html`;
    const one = await openPage(session.browser, `${base}?trace=/test/fixtures/traces/completed.hudtrace.json`);
    await one.page.waitForSelector('body[data-state=trace]');
    assert.equal(await one.page.getByTestId('reward').innerText(), '0.75');
    await one.page.close();
    const two = await openPage(
      session.browser,
      `${base}?trace=/test/fixtures/traces/completed.hudtrace.json&compare=/test/fixtures/traces/compare-b.hudtrace.json`,
    );
    await two.page.waitForSelector('body[data-state=compare]');
    assert.equal(await two.page.getByTestId('compare-right').getByTestId('reward').innerText(), '0.6');
    assert.deepEqual(two.problems.errors, []);
    await two.page.close();
  });
});
