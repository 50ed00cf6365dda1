/**
 * A Harbor agent that makes what the engine collects huge (docs/security.md):
 * sparse files cost the container no space, but a copy out of it streams
 * their whole size onto the host. Here the agent does the task's work, then
 * leaves 3 GiB sparse files in a declared artifact folder, /logs/artifacts
 * and /logs/agent, which the engine collects after every trial. Nothing of
 * them may reach the host, the trial must still be graded (an agent must not
 * turn its result into an engine error), and each skipped copy is named.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, fixtureVariant, runTrial } from '../harbor/support';

before(dockerReady);

/** Bytes of every file under `dir` (their sizes, sparse or not). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir)) {
    const st = lstatSync(join(dir, name));
    total += st.isDirectory() ? folderBytes(join(dir, name)) : st.size;
  }
  return total;
}

const SOLVE_THEN_BLOAT = [
  'echo 42 > /app/result.txt',
  'mkdir -p /app/report && echo "# summary" > /app/report/summary.md',
  'echo absent > /logs/artifacts/agent-saw-token.txt',
  'truncate -s 3G /app/report/huge.bin /logs/artifacts/huge.bin /logs/agent/huge.log',
  'echo done',
].join('\n');

test('3 GiB sparse files in what the engine collects: nothing of them reaches the host, and the trial is graded', async () => {
  const started = Date.now();
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'separate-artifacts'), {
    agent: 'command',
    command: SOLVE_THEN_BLOAT,
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  // The declared folder was not collected, so the separate verifier misses summary.md.
  assert.equal(outcome.reward, 0);
  assert.ok(
    folderBytes(outcome.trialDir) < 10_000_000,
    `the trial folder holds ${folderBytes(outcome.trialDir)} bytes`,
  );
  const warnings = readTrace(outcome.tracePath!).warnings.join('\n');
  assert.match(warnings, /declared artifact \/app\/report \(service main\) was not collected: .*huge\.bin.*limit/);
  assert.match(warnings, /\/logs\/artifacts was not collected: .*huge\.bin/);
  assert.match(warnings, /\/logs\/agent was not collected: .*huge\.log/);
  // Refused from the archive's headers, before any of the 9 GiB streamed.
  assert.ok(Date.now() - started < 120_000, `the trial took ${Date.now() - started} ms`);
});

// Tests that keep what the agent made (a report, its output) in /logs/verifier: here, every file of /app.
const KEEPS_AGENT_FILES =
  [
    '#!/bin/bash',
    'mkdir -p /logs/verifier/kept',
    'cp -a --sparse=always /app/. /logs/verifier/kept/',
    '[ "$(cat /app/greeting.txt 2>/dev/null)" = "hello, harbor" ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt',
  ].join('\n') + '\n';

test("a verifier that keeps a 3 GiB sparse file of the agent's in /logs/verifier: the reward is still read", async () => {
  const dir = fixtureVariant('shared-basic', { 'tests/test.sh': KEEPS_AGENT_FILES });
  const { outcome } = await runTrial(dir, {
    agent: 'command',
    command: 'echo "hello, harbor" > /app/greeting.txt && truncate -s 3G /app/huge.bin && echo done',
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1, 'the reward file was read');
  assert.ok(
    folderBytes(outcome.trialDir) < 10_000_000,
    `the trial folder holds ${folderBytes(outcome.trialDir)} bytes`,
  );
  assert.match(
    readTrace(outcome.tracePath!).warnings.join('\n'),
    /\/logs\/verifier was not collected whole .*huge\.bin.*: only its reward file was/,
  );
});
