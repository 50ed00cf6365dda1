/**
 * Issue 13's Harbor attacks on the real Docker engine: an agent in the actor's
 * seat (root, as Harbor tasks usually run it, or a user of its own) tries to
 * raise its own reward through the engine's file handling. Each must end with
 * reward 0 or an error, or be marked forgeable where nothing can stop it.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, fixtureVariant, runTrial } from './support';

before(dockerReady);

// Attack 2: a `cat` first on PATH that answers for the reward file. The
// task's own test writes 0; only a reader that runs `cat` in the container
// would report 1.
const FAKE_CAT = [
  "cat > /usr/local/bin/cat <<'SH'",
  '#!/bin/sh',
  'case "$1" in /logs/verifier/reward.json) echo \'{"reward": 1}\'; exit 0 ;; /logs/verifier/reward.txt) echo 1; exit 0 ;; esac',
  'exec /bin/cat "$@"',
  'SH',
  'chmod +x /usr/local/bin/cat',
  // Also shadow the tools a reset might use to clear /logs/verifier.
  "printf '#!/bin/sh\\nexit 0\\n' > /usr/local/bin/rm && chmod +x /usr/local/bin/rm",
  'echo planted',
].join('\n');

test('attack 2: a replaced `cat` in the shared container does not fake the reward', async () => {
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'shared-basic'), { agent: 'command', command: FAKE_CAT });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 0);
  assert.equal(readFileSync(join(outcome.trialDir, 'verifier', 'reward.txt'), 'utf8').trim(), '0');
  const trace = readTrace(outcome.tracePath!);
  assert.equal(trace.result?.info?.source, 'reward.txt');
});

test('attack 2: a shared-mode reward earned by a root agent is marked forgeable', async () => {
  const { outcome } = await runTrial(join(HARBOR_FIXTURES, 'shared-basic'), { agent: 'oracle' });
  assert.equal(outcome.reward, 1);
  const trace = readTrace(outcome.tracePath!);
  assert.equal(trace.harbor?.forgeable, true);
  assert.ok(
    trace.warnings.some((w) => /forgeable/.test(w)),
    trace.warnings.join('\n'),
  );
  const result = JSON.parse(readFileSync(join(outcome.trialDir, 'result.json'), 'utf8')) as {
    hud_studio: { forgeable: boolean };
  };
  assert.equal(result.hud_studio.forgeable, true);
});

// Attack 3: one declared artifact holds a symlink into the verifier's
// /usr/local/bin and a second, overlapping one would be written through it.
const SYMLINK_PLANT = [
  'mkdir -p /app/out',
  'ln -s /usr/local/bin /app/out/sub',
  "printf '#!/bin/sh\\necho 1 > /logs/verifier/reward.txt; exit 0\\n' > /usr/local/bin/grade",
  'chmod +x /usr/local/bin/grade',
  'echo planted',
].join('\n');

const GRADE_TEST =
  [
    '#!/bin/bash',
    'echo 0 > /logs/verifier/reward.txt',
    // A verifier that calls a helper from PATH: the agent must not be able to supply it.
    'if command -v grade >/dev/null; then grade; fi',
    '[ -L /app/out/sub ] && echo "symlink arrived"',
    'exit 0',
  ].join('\n') + '\n';

const ORDERS: unknown[][] = [
  ['/app/out', { source: '/app/out/sub/grade', destination: 'elsewhere/grade' }],
  ['/app/out', '/app/out/sub/grade'],
  ['/app/out/sub/grade', '/app/out'],
];

for (const order of ORDERS) {
  test(`attack 3: artifact copies never follow symlinks (${JSON.stringify(order)})`, async () => {
    const toml = readFileSync(join(HARBOR_FIXTURES, 'separate-artifacts', 'task.toml'), 'utf8')
      .replace(/^artifacts = .*$/m, `artifacts = ${tomlArray(order)}`)
      .replace(/^env = .*$/m, '');
    const dir = fixtureVariant('separate-artifacts', { 'task.toml': toml, 'tests/test.sh': GRADE_TEST });
    const { outcome } = await runTrial(dir, { agent: 'command', command: SYMLINK_PLANT });
    assert.notEqual(outcome.reward, 1, 'the planted helper ran in the verifier');
    if (outcome.status === 'completed') assert.equal(outcome.reward, 0);
    // Nothing landed outside the trial folder on the host either.
    assert.equal(existsSync('/usr/local/bin/grade'), false);
  });
}

function tomlArray(items: unknown[]): string {
  const one = (v: unknown): string =>
    typeof v === 'string'
      ? JSON.stringify(v)
      : `{ ${Object.entries(v as Record<string, string>)
          .map(([k, x]) => `${k} = ${JSON.stringify(x)}`)
          .join(', ')} }`;
  return `[${items.map(one).join(', ')}]`;
}

// Links a non-root agent leaves for a shared verifier (docs/security.md, "Links the agent leaves"): the tests
// keep the expected word in /tests, which is empty while the agent works, and compare the agent's answer with it.
const AGENT_USER_TASK = `schema_version = "1.0"

[task]
name = "hud-studio-fixtures/link-to-tests"
description = "Write the word only the tests know; they read it from /tests."

[agent]
timeout_sec = 60
user = "agent"

[verifier]
timeout_sec = 60
environment_mode = "shared"

[environment]
build_timeout_sec = 300
workdir = "/app"
cpus = 1
memory_mb = 256
`;

const COMPARES_WITH_TESTS =
  [
    '#!/bin/bash',
    'mkdir -p /logs/verifier',
    'if [ "$(cat /app/answer.txt 2>/dev/null)" = "$(cat /tests/expected.txt)" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt',
  ].join('\n') + '\n';

function agentUserTask(dockerfileExtra: string, testSh = COMPARES_WITH_TESTS): string {
  return fixtureVariant('shared-basic', {
    'task.toml': AGENT_USER_TASK,
    'environment/Dockerfile': `FROM hud-studio/base:bookworm\nRUN useradd -m agent && mkdir -p /app && chown agent /app${dockerfileExtra}\nWORKDIR /app\n`,
    'tests/test.sh': testSh,
    'tests/expected.txt': 'x7-quokka\n',
  });
}

const NO_PYTHON = ' && rm -f /usr/bin/python3* /usr/local/bin/python3*';

const LINK_TO_TESTS =
  'ln -s /tests/expected.txt /app/answer.txt && mkdir /app/ro && ln -s /proc/1/cwd /app/ro/x && chmod 555 /app/ro && echo done';

test("a non-root agent's link to where the tests keep their expected word is cut before they run", async () => {
  const { outcome } = await runTrial(agentUserTask(''), { agent: 'command', command: LINK_TO_TESTS });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 0, 'the tests read their own expected word through the agent link');
  const trace = readTrace(outcome.tracePath!);
  const warning = trace.warnings.find((w) => w.startsWith('removed '));
  assert.match(
    warning ?? '',
    /^removed 2 symlinks .*"\/app\/answer\.txt" -> "\/tests\/expected\.txt"/,
    trace.warnings.join('\n'),
  );
  assert.notEqual(trace.harbor?.forgeable, true);
});

// Many Harbor images have no python3 until their tests install one: the check then runs from a container of the
// engine's base image beside the task's, in the task's file system, with the agent's user and groups.
test("an image without python3 has its links checked from beside it: the link to the tests' word is cut", async () => {
  const { outcome, events } = await runTrial(agentUserTask(NO_PYTHON), {
    agent: 'command',
    command: `${LINK_TO_TESTS} && (command -v python3 || echo 'no python3 here')`,
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.ok(
    events.some((e) => e.type === 'log' && /no python3 here/.test(e.text)),
    'the agent ran in an image without python3',
  );
  assert.equal(outcome.reward, 0, 'the tests read their own expected word through the agent link');
  const trace = readTrace(outcome.tracePath!);
  assert.match(
    trace.warnings.find((w) => w.startsWith('removed ')) ?? '',
    /^removed 2 symlinks .*"\/app\/answer\.txt" -> "\/tests\/expected\.txt"/,
    trace.warnings.join('\n'),
  );
  assert.notEqual(trace.harbor?.forgeable, true, trace.warnings.join('\n'));
});

// Tests that write the expected word to a scratch file and compare the two files: the agent makes the scratch
// file's name lead to its answer beforehand, so the tests write the word into the answer.
function comparesThrough(folder: string): string {
  return (
    [
      '#!/bin/bash',
      `mkdir -p /logs/verifier ${folder}`,
      `cat /tests/expected.txt > ${folder}/expected.txt`,
      `if [ "$(cat /app/answer.txt 2>/dev/null)" = "$(cat ${folder}/expected.txt)" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt`,
    ].join('\n') + '\n'
  );
}

/** A scratch folder of root's that the agent's group may write (no sticky bit). */
const GROUP_SCRATCH =
  ' && groupadd scratch && usermod -aG scratch agent && mkdir /srv/scratch && chgrp scratch /srv/scratch && chmod 2770 /srv/scratch';

/** A drop folder of root's that everyone may add names to but not list (as PHP's sessions folder is). */
const DROP_FOLDER = ' && mkdir /srv/drop && chmod 1733 /srv/drop';

const THROUGH_SCRATCH: { name: string; folder: string; image?: string; plant: string; said: RegExp }[] = [
  {
    name: 'link in /tmp',
    folder: '/tmp/grading',
    plant: 'mkdir -p /tmp/grading && ln -s /app/answer.txt /tmp/grading/expected.txt',
    said: /^removed 1 symlink .*"\/tmp\/grading\/expected\.txt" -> "\/app\/answer\.txt"/,
  },
  {
    name: 'hard link in /tmp',
    folder: '/tmp/grading',
    plant: 'mkdir -p /tmp/grading && ln /app/answer.txt /tmp/grading/expected.txt',
    said: /^gave 1 file /,
  },
  {
    name: "link in a folder of root's that its group writes",
    folder: '/srv/scratch',
    image: GROUP_SCRATCH,
    plant: 'ln -s /app/answer.txt /srv/scratch/expected.txt',
    said: /^removed 1 symlink .*"\/srv\/scratch\/expected\.txt" -> "\/app\/answer\.txt"/,
  },
  {
    name: 'link in a drop folder it may not list',
    folder: '/srv/drop',
    image: DROP_FOLDER,
    plant: 'ln -s /app/answer.txt /srv/drop/expected.txt',
    said: /^removed 1 symlink .*"\/srv\/drop\/expected\.txt" -> "\/app\/answer\.txt"/,
  },
];

// The same in an image without python3, checked from beside it: its walk as the agent's user and groups, and
// root's walk of the drop folder.
for (const attack of THROUGH_SCRATCH.flatMap((a) => [a, { ...a, image: `${a.image ?? ''}${NO_PYTHON}` }])) {
  const where = attack.image?.endsWith(NO_PYTHON) ? ' (an image without python3)' : '';
  test(`a non-root agent's ${attack.name} to its answer does not take the tests' writes${where}`, async () => {
    const { outcome } = await runTrial(agentUserTask(attack.image ?? '', comparesThrough(attack.folder)), {
      agent: 'command',
      command: `echo guess > /app/answer.txt && ${attack.plant} && echo done`,
    });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
    assert.equal(outcome.reward, 0, 'the tests wrote their expected word into the answer');
    const trace = readTrace(outcome.tracePath!);
    assert.ok(
      trace.warnings.some((w) => attack.said.test(w)),
      trace.warnings.join('\n'),
    );
  });
}

// Tests that run a program by name, in an image whose PATH starts with a folder of the agent's: the agent plants a
// `python3` that passes every check. The tests' behaviour is kept (Harbor runs what the PATH finds); the reward is
// marked forgeable, naming the folder.
const COMPARES_WITH_PYTHON =
  [
    '#!/bin/bash',
    'mkdir -p /logs/verifier',
    `if python3 -c "import sys; sys.exit(open('/app/answer.txt').read() != open('/tests/expected.txt').read())"; then echo 1; else echo 0; fi > /logs/verifier/reward.txt`,
  ].join('\n') + '\n';

test("a non-root agent that can plant programs on the tests' PATH gets a forgeable reward", async () => {
  const { outcome } = await runTrial(
    agentUserTask(
      ' && mkdir /app/bin && chown agent /app/bin\nENV PATH=/app/bin:/usr/local/bin:/usr/bin:/bin',
      COMPARES_WITH_PYTHON,
    ),
    {
      agent: 'command',
      command: `echo guess > /app/answer.txt && printf '#!/bin/sh\\nexit 0\\n' > /app/bin/python3 && chmod +x /app/bin/python3 && echo done`,
    },
  );
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1, "the tests ran the agent's python3, as under Harbor");
  const trace = readTrace(outcome.tracePath!);
  assert.equal(trace.harbor?.forgeable, true);
  assert.ok(
    trace.warnings.some((w) => /^this reward is forgeable: the agent's user could put programs .*"\/app\/bin"/.test(w)),
    trace.warnings.join('\n'),
  );
});

// Tests that start python3 in their working folder (`python3 - <<'PY'`, as many of Harbor's own examples do): that
// folder is first on the module path, and it is the agent's workdir. A json.py left there runs with the tests'
// rights when they `import json`. Harbor's behaviour is kept; the reward is marked forgeable, naming the file.
const COMPARES_IN_PYTHON =
  [
    '#!/bin/bash',
    'mkdir -p /logs/verifier',
    "python3 - <<'PY'",
    'import json',
    'ok = open("/app/answer.txt").read() == open("/tests/expected.txt").read()',
    'open("/logs/verifier/reward.json", "w").write(json.dumps({"reward": 1 if ok else 0}))',
    'PY',
  ].join('\n') + '\n';

const FAKE_JSON = `import os\nopen("/logs/verifier/reward.txt", "w").write("1")\nos._exit(0)\n`;

/**
 * The agent leaves `/app/json.py` for tests that import json in `/app`: reward 1, as under Harbor, marked forgeable
 * with `said`; an honest agent's files of its own names leave the reward as it is.
 */
async function assertShadowingMarked(task: string, said: RegExp): Promise<void> {
  const { outcome } = await runTrial(task, {
    agent: 'command',
    command: `echo guess > /app/answer.txt && printf '${FAKE_JSON.replace(/\n/g, '\\n')}' > /app/json.py && echo done`,
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1, "the tests imported the agent's json.py, as under Harbor");
  const trace = readTrace(outcome.tracePath!);
  assert.equal(trace.harbor?.forgeable, true, trace.warnings.join('\n'));
  assert.ok(
    trace.warnings.some((w) => said.test(w)),
    trace.warnings.join('\n'),
  );
  const honest = await runTrial(task, {
    agent: 'command',
    command: 'echo guess > /app/answer.txt && echo "x = 1" > /app/helper.py && echo done',
  });
  assert.equal(honest.outcome.reward, 0);
  assert.notEqual(readTrace(honest.outcome.tracePath!).harbor?.forgeable, true);
}

test("a non-root agent's module that shadows the standard library where the tests run makes a forgeable reward", () =>
  assertShadowingMarked(
    agentUserTask('', COMPARES_IN_PYTHON),
    /^this reward is forgeable: the agent left "\/app\/json\.py" in "\/app", where the graders run/,
  ));

// Schedulers in the image: the agent leaves a cron job that puts its link back after the turn-end check cut it (and
// an at job for later). The image's entrypoint runs cron and atd, as a service image may; the tests take over a
// minute, as a real suite may.
const WITH_CRON =
  ' && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cron at >/dev/null' +
  ' && rm -rf /var/lib/apt/lists/*\nENTRYPOINT ["/bin/sh", "-c", "cron && atd && exec \\"$@\\"", "entrypoint"]';

const SLOW_COMPARE =
  [
    '#!/bin/bash',
    'mkdir -p /logs/verifier',
    'sleep 65',
    'if [ "$(cat /app/answer.txt 2>/dev/null)" = "$(cat /tests/expected.txt)" ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt',
  ].join('\n') + '\n';

test("a non-root agent's cron job, which runs while the tests grade, makes a forgeable reward", async () => {
  const task = fixtureVariant('shared-basic', {
    'task.toml': AGENT_USER_TASK.replace('[verifier]\ntimeout_sec = 60', '[verifier]\ntimeout_sec = 180'),
    'environment/Dockerfile': `FROM hud-studio/base:bookworm\nRUN useradd -m agent && mkdir -p /app && chown agent /app${WITH_CRON}\nWORKDIR /app\n`,
    'tests/test.sh': SLOW_COMPARE,
  });
  const { outcome } = await runTrial(task, {
    agent: 'command',
    command:
      "echo guess > /app/answer.txt && echo '* * * * * ln -sf /tests/expected.txt /app/answer.txt' | crontab - && " +
      'echo true | at now + 1 hour 2>/dev/null && echo done',
  });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1, "cron ran the agent's job while the tests graded, as it would under Harbor");
  const trace = readTrace(outcome.tracePath!);
  assert.equal(trace.harbor?.forgeable, true);
  assert.ok(
    trace.warnings.some((w) =>
      /^this reward is forgeable: the agent left jobs for a scheduler \("\/var\/spool\/cron\/crontabs\/agent", "\/var\/spool\/cron\/atjobs\/[^"]+"\)/.test(
        w,
      ),
    ),
    trace.warnings.join('\n'),
  );
});

// A separate verifier gets the declared artifacts at their own paths. When one of them is the folder the tests run
// in (here all of /app, which is also the verifier's workdir), the agent's /app/json.py lands there, and the tests'
// `python3 -` imports it with the verifier's rights: it writes reward 1 for a wrong answer, as under Harbor. The
// reward is marked forgeable, naming the module; an artifact of the agent's own names leaves it as it is.
const SEPARATE_IN_APP = `schema_version = "1.0"
artifacts = ["/app"]

[task]
name = "hud-studio-fixtures/separate-in-app"
description = "The separate verifier runs in /app, where the agent's files arrive."

[agent]
timeout_sec = 60

[verifier]
timeout_sec = 60

[verifier.environment]
workdir = "/app"
network_mode = "no-network"

[environment]
workdir = "/app"
`;

test("an artifact that lands in a separate verifier's working folder under a standard module's name makes a forgeable reward", () =>
  assertShadowingMarked(
    fixtureVariant('separate-artifacts', {
      'task.toml': SEPARATE_IN_APP,
      'tests/test.sh': COMPARES_IN_PYTHON,
      'tests/expected.txt': 'x7-quokka\n',
      'tests/Dockerfile': 'FROM hud-studio/base:bookworm\nCOPY . /tests/\nWORKDIR /app\n',
    }),
    /^this reward is forgeable: the artifacts put "\/app\/json\.py" in "\/app", where the tests run/,
  ));

// The same module through the verifier's PYTHONPATH: its tests run in a folder of their own, but every python3
// there looks modules up in /app, where the artifacts land, before its own.
test("an artifact that lands on a separate verifier's PYTHONPATH under a standard module's name makes a forgeable reward", () =>
  assertShadowingMarked(
    fixtureVariant('separate-artifacts', {
      'task.toml': SEPARATE_IN_APP.replace('workdir = "/app"\nnetwork_mode', 'workdir = "/check"\nnetwork_mode'),
      'tests/test.sh': COMPARES_IN_PYTHON,
      'tests/expected.txt': 'x7-quokka\n',
      'tests/Dockerfile': 'FROM hud-studio/base:bookworm\nENV PYTHONPATH=/app\nCOPY . /tests/\nWORKDIR /check\n',
    }),
    /^this reward is forgeable: the artifacts put "\/app\/json\.py" in "\/app", on the verifier's PYTHONPATH/,
  ));

test('a separate verifier without python3 cannot say which artifact modules would shadow: only modules mark it', async () => {
  const task = fixtureVariant('separate-artifacts', {
    'task.toml': SEPARATE_IN_APP,
    'tests/test.sh': COMPARES_WITH_TESTS,
    'tests/expected.txt': 'x7-quokka\n',
    'tests/Dockerfile': `FROM hud-studio/base:bookworm\nRUN rm -f /usr/bin/python3* /usr/local/bin/python3*\nCOPY . /tests/\nWORKDIR /app\n`,
  });
  const planted = await runTrial(task, {
    agent: 'command',
    command: 'echo guess > /app/answer.txt && mkdir /app/pkg && touch /app/pkg/__init__.py && echo done',
  });
  assert.equal(planted.outcome.reward, 0);
  const trace = readTrace(planted.outcome.tracePath!);
  assert.equal(trace.harbor?.forgeable, true, trace.warnings.join('\n'));
  assert.ok(
    trace.warnings.some((w) => /the artifacts put "\/app\/pkg" in "\/app", .*has no python3/.test(w)),
    trace.warnings.join('\n'),
  );
  const honest = await runTrial(task, { agent: 'command', command: 'echo guess > /app/answer.txt && echo done' });
  assert.equal(honest.outcome.reward, 0);
  assert.notEqual(readTrace(honest.outcome.tracePath!).harbor?.forgeable, true);
});

// A declared artifact whose destination is `logs` puts the agent's copy where the trial's own `logs/artifacts`
// (the container's /logs/artifacts) goes next: an agent that made its source a link had that host copy follow it.
test("the trial's copy of /logs/artifacts does not follow a link an artifact of the agent's put in its way", async () => {
  const victim = mkdtempSync(join(tmpdir(), 'hs-harbor-victim-'));
  const toml = readFileSync(join(HARBOR_FIXTURES, 'separate-artifacts', 'task.toml'), 'utf8')
    .replace(/^artifacts = .*$/m, `artifacts = ${tomlArray([{ source: '/app/applogs', destination: 'logs' }])}`)
    .replace(/^env = .*$/m, '');
  const dir = fixtureVariant('separate-artifacts', { 'task.toml': toml, 'tests/test.sh': GRADE_TEST });
  const plant = [`ln -s '${victim}' /app/applogs`, 'echo note > /logs/artifacts/note.txt', 'echo planted'].join('\n');
  const { outcome } = await runTrial(dir, { agent: 'command', command: plant });
  assert.deepEqual(readdirSync(victim), [], `nothing was written into ${victim} on the host`);
  assert.notEqual(outcome.reward, 1);
  assert.equal(outcome.status, 'error');
  assert.match(outcome.error?.message ?? '', /is a symlink an earlier artifact created/);
});
