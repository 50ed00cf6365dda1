/**
 * What Harbor itself gets wrong or leaves vague, on the real Docker engine:
 * reward faking, agent timeouts, missing reward files, cancellation
 * (allowlists: allowlist.test.ts).
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, assertNothingLeft, fixtureVariant, runTrial } from './support';

before(dockerReady);

// Writes a perfect reward everywhere, plants its own /tests, and leaves a
// detached process (own session, scrubbed environment) that keeps rewriting it.
const FAKER = [
  'mkdir -p /logs/verifier /tests',
  'echo 1 > /logs/verifier/reward.txt',
  `echo '{"reward": 1}' > /logs/verifier/reward.json`,
  `printf '#!/bin/bash\\necho 1 > /logs/verifier/reward.txt\\n' > /tests/test.sh`,
  // Builtins only, no sleep: it rewrites the file continuously, so a surviving copy always wins the race.
  `setsid env -i /bin/sh -c 'while :; do [ -d /logs/verifier ] || mkdir -p /logs/verifier; echo 1 > /logs/verifier/reward.txt; done' >/dev/null 2>&1 < /dev/null &`,
  'echo done',
].join('\n');

for (const name of ['shared-basic', 'separate-artifacts']) {
  test(`${name}: an agent that writes /logs/verifier/reward.* itself does not get its reward`, async () => {
    const { outcome } = await runTrial(join(HARBOR_FIXTURES, name), { agent: 'command', command: FAKER });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
    assert.equal(outcome.reward, 0);
    assert.equal(readFileSync(join(outcome.trialDir, 'verifier', 'reward.txt'), 'utf8').trim(), '0');
  });
}

test('an agent timeout is recorded and verification still runs', async () => {
  const dir = fixtureVariant('shared-basic', {
    'task.toml': readFileSync(join(HARBOR_FIXTURES, 'shared-basic', 'task.toml'), 'utf8').replace(
      'timeout_sec = 60\n',
      'timeout_sec = 2\n',
    ),
  });
  const { outcome } = await runTrial(dir, {
    agent: 'command',
    command: 'echo "hello, harbor" > /app/greeting.txt; sleep 60',
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  // What the agent did before the timeout still counts.
  assert.equal(outcome.reward, 1);
  const trace = readTrace(outcome.tracePath!);
  assert.equal(trace.harbor?.agentTimedOut, true);
  assert.ok(
    trace.warnings.some((w) => /agent timed out after 2 s/.test(w)),
    trace.warnings.join('\n'),
  );
  const agentStep = trace.phases[0]!.steps.find((s) => s.step === 'agent');
  assert.equal(agentStep?.status, 'error');
  assert.equal(
    JSON.parse(readFileSync(join(outcome.trialDir, 'result.json'), 'utf8')).hud_studio.agent_timed_out,
    true,
  );
});

test('a missing reward file is an error that shows what the verifier printed', async () => {
  const dir = fixtureVariant('shared-basic', {
    'tests/test.sh': '#!/bin/bash\necho "checking the greeting"\necho "forgot to write a reward" >&2\nexit 3\n',
  });
  const { outcome } = await runTrial(dir, { agent: 'oracle' });
  assert.equal(outcome.status, 'error');
  assert.equal(outcome.reward, null);
  assert.equal(outcome.error?.phase, 'verifier');
  assert.match(outcome.error.message, /no reward file/);
  assert.match(outcome.error.message, /exited with code 3/);
  assert.match(outcome.error.message, /checking the greeting/);
  assert.match(outcome.error.message, /forgot to write a reward/);
});

test('shared mode keeps ${VAR} verifier variables out of the agent container unless allowed', async () => {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'shared-basic', 'task.toml'), 'utf8').replace(
    'environment_mode = "shared"',
    'environment_mode = "shared"\nenv = { JUDGE_KEY = "${HS_TEST_JUDGE_KEY}", MODE = "strict" }',
  );
  const test =
    '#!/bin/bash\nmkdir -p /logs/verifier\necho "key=${JUDGE_KEY:-none} mode=${MODE}"\n[ "$JUDGE_KEY" = "k-123" ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n';
  const dir = fixtureVariant('shared-basic', { 'task.toml': toml, 'tests/test.sh': test });
  const withheld = await runTrial(dir, { agent: 'oracle' }, { hostEnv: { HS_TEST_JUDGE_KEY: 'k-123' } });
  assert.equal(withheld.outcome.reward, 0);
  assert.match(
    readFileSync(join(withheld.outcome.trialDir, 'verifier', 'test-stdout.txt'), 'utf8'),
    /key=none mode=strict/,
  );
  assert.ok(readTrace(withheld.outcome.tracePath!).warnings.some((w) => /JUDGE_KEY .*NOT passed/.test(w)));
  const allowed = await runTrial(
    dir,
    { agent: 'oracle' },
    { hostEnv: { HS_TEST_JUDGE_KEY: 'k-123' }, allowSharedSecrets: true },
  );
  assert.equal(allowed.outcome.reward, 1);
});

test("the run says which of the host's variables [environment] env puts where the agent can read them", async () => {
  const toml = readFileSync(join(HARBOR_FIXTURES, 'shared-basic', 'task.toml'), 'utf8').replace(
    '[environment]\n',
    '[environment]\nenv = { TOOL_KEY = "${HS_TEST_TOOL_KEY}", UNSET = "${HS_TEST_UNSET:-x}", MODE = "fast" }\n',
  );
  const dir = fixtureVariant('shared-basic', { 'task.toml': toml });
  const { outcome } = await runTrial(
    dir,
    { agent: 'command', command: 'echo "$TOOL_KEY"' },
    { hostEnv: { HS_TEST_TOOL_KEY: 't-9' } },
  );
  assert.equal(outcome.trace.answer, 't-9', 'Harbor hands the task its key, as it asked');
  const said = outcome.trace.phases[0]!.logs.map((l) => l.text).join('\n');
  assert.match(
    said,
    /the agent's container gets the host's HS_TEST_TOOL_KEY \(\[environment\] env\): the agent can read it/,
  );
});

test('cancelling during the agent leaves nothing behind', async () => {
  const ctl = new AbortController();
  const { outcome } = await runTrial(
    join(HARBOR_FIXTURES, 'compose-sidecar'),
    { agent: 'command', command: 'sleep 120' },
    {
      signal: ctl.signal,
      onEvent: (e) => e.type === 'step' && e.step === 'agent' && e.status === 'started' && ctl.abort(),
    },
  );
  assert.equal(outcome.status, 'cancelled');
  assert.equal(outcome.reward, null);
  await assertNothingLeft(outcome.rolloutId);
});

test('storage_mb and gpus the daemon cannot apply are warned about, never silently dropped', async () => {
  const dir = fixtureVariant('shared-basic', {
    'task.toml': readFileSync(join(HARBOR_FIXTURES, 'shared-basic', 'task.toml'), 'utf8').replace(
      'memory_mb = 256',
      'memory_mb = 256\nstorage_mb = 512\ngpus = 1',
    ),
  });
  const { outcome } = await runTrial(dir, { agent: 'oracle' });
  assert.equal(outcome.reward, 1, JSON.stringify(outcome.error));
  const warnings = readTrace(outcome.tracePath!).warnings.join('\n');
  // This daemon (overlay2 without xfs quotas, no GPU runtime) can apply neither.
  assert.match(warnings, /storage limit of 512 MB not applied/);
  assert.match(warnings, /GPU request \(1\) not applied/);
});

test('a symlinked artifact never reaches host files: excludes do not delete through it, copies do not follow it', async () => {
  // The agent points a declared artifact folder at a host path; only a canary lives there.
  const hostDir = mkdtempSync(join(tmpdir(), 'hs-canary-'));
  writeFileSync(join(hostDir, 'canary.tmp'), 'host secret');
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'separate-artifacts'), {
    agent: 'command',
    command: `echo 42 > /app/result.txt; mkdir -p ${hostDir}; ln -s ${hostDir} /app/report`,
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 0, 'the verifier must not see report/summary.md');
  assert.equal(
    readFileSync(join(hostDir, 'canary.tmp'), 'utf8'),
    'host secret',
    'exclude "*.tmp" must not delete through the symlink',
  );
  const copy = join(outcome.trialDir, 'artifacts', 'report');
  assert.ok(lstatSync(copy).isSymbolicLink(), 'kept as a symlink, not followed');
  assert.doesNotMatch(readFileSync(join(outcome.trialDir, 'verifier', 'test-stdout.txt'), 'utf8'), /host secret/);
});

// A task's own scripts are someone else's code too (a dataset from a registry): a link they leave under the names
// of the files the engine writes into the trial folder must not turn those writes into writes of host files.
test("links under the trial folder's own file names do not carry the engine's writes onto host files", async () => {
  const victims = mkdtempSync(join(tmpdir(), 'hs-harbor-victims-'));
  const testOutput = join(victims, 'from-test-output');
  const exitCode = join(victims, 'from-exit-code');
  writeFileSync(testOutput, 'original\n');
  writeFileSync(exitCode, 'original\n');
  const dir = fixtureVariant('shared-basic', {
    'tests/test.sh': [
      '#!/bin/bash',
      'mkdir -p /logs/verifier',
      `ln -s '${testOutput}' /logs/verifier/test-stdout.txt`,
      'echo "line the tests printed"',
      'echo 0 > /logs/verifier/reward.txt',
    ].join('\n'),
    'solution/solve.sh': ['#!/bin/bash', `ln -s '${exitCode}' /logs/agent/exit-code.txt`, 'exit 3'].join('\n'),
  });
  const { outcome } = await runTrial(dir, { agent: 'oracle' });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 0);
  assert.equal(readFileSync(testOutput, 'utf8'), 'original\n', "the tests' output did not go through their link");
  assert.equal(readFileSync(exitCode, 'utf8'), 'original\n', "the oracle's exit code did not go through its link");
  // The trial folder holds the engine's own files in their place.
  const trial = outcome.trialDir;
  assert.equal(lstatSync(join(trial, 'verifier', 'test-stdout.txt')).isSymbolicLink(), false);
  assert.match(readFileSync(join(trial, 'verifier', 'test-stdout.txt'), 'utf8'), /line the tests printed/);
  assert.equal(readFileSync(join(trial, 'agent', 'exit-code.txt'), 'utf8'), '3');
});

// A dataset's compose file is the task author's, not the user's: one that binds the Docker socket into the agent's
// service would hand whoever sits there every container of the daemon, the host's root with them.
test("a task's own compose file that binds the Docker socket runs only with the user's consent", async () => {
  const compose = readFileSync(join(HARBOR_FIXTURES, 'compose-sidecar', 'environment', 'docker-compose.yaml'), 'utf8');
  const dir = fixtureVariant('compose-sidecar', {
    'environment/docker-compose.yaml': compose.replace(
      '    command: ["sleep", "infinity"]\n',
      '    command: ["sleep", "infinity"]\n    volumes:\n      - /var/run/docker.sock:/var/run/docker.sock\n',
    ),
  });
  const refused = await runTrial(dir, { agent: 'command', command: 'test -S /var/run/docker.sock && echo reached' });
  assert.equal(refused.outcome.status, 'error');
  assert.match(
    refused.outcome.error?.message ?? '',
    /service "main" binds \/var\/run\/docker\.sock.*needs your explicit consent/,
  );
  const consented = await runTrial(
    dir,
    { agent: 'command', command: 'test -S /var/run/docker.sock && echo reached' },
    { allowServiceAccess: true },
  );
  assert.equal(consented.outcome.status, 'completed', JSON.stringify(consented.outcome.error));
  assert.equal(consented.outcome.trace.answer, 'reached');
  assert.ok(
    consented.outcome.trace.warnings.some((w) => /binds \/var\/run\/docker\.sock.*consented/.test(w)),
    `the run says the task was given the socket: ${JSON.stringify(consented.outcome.trace.warnings)}`,
  );
});
