/** `hud-studio check`: JSON and human output, exit codes, usage errors. */
import { dockerfilePath } from '../../../client/src/cli/checkDockerfile';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runCheck, type CheckFinding } from '../../../client/src/cli/check';
import type { CliIO } from '../../../client/src/cli/io';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'workspaces');

function capture(cwd: string): { io: CliIO; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    io: { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, cwd, env: {} },
    out: () => out,
    err: () => err,
  };
}

describe('hud-studio check', () => {
  test('--json lists every finding with 1-based positions and exits 1 on errors', async () => {
    const c = capture(join(FIXTURES, 'lsp-basic'));
    const code = await runCheck(['--json'], c.io);
    assert.equal(code, 1);
    const findings = JSON.parse(c.out()) as CheckFinding[];
    assert.deepEqual(
      findings.map((f) => [f.file, f.line, f.column, f.severity, f.code]),
      [
        ['envs/env.py', 14, 1, 'warning', 'verifier-args-in-actor-files'],
        ['envs/env.py', 16, 16, 'error', 'task-bad-args'],
        ['harbor/broken/task.toml', 1, 1, 'error', 'harbor-missing-instruction'],
        ['harbor/broken/task.toml', 1, 1, 'error', 'harbor-missing-test-sh'],
        ['harbor/broken/task.toml', 2, 1, 'error', 'harbor-schema'],
        ['harbor/hello/task.toml', 1, 1, 'info', 'harbor-shared-forgeable'],
      ],
    );
    for (const f of findings) assert.match(f.message, /fix/);
  });

  test('human output is file:line:col severity code message', async () => {
    const c = capture(join(FIXTURES, 'lsp-basic'));
    assert.equal(await runCheck(['envs'], c.io), 1);
    const lines = c.out().trimEnd().split('\n');
    assert.equal(lines.length, 2, c.out());
    assert.match(
      lines[0]!,
      /^envs\/env\.py:14:1 warning verifier-args-in-actor-files the literal arguments of verifier judge\/verify/,
    );
    assert.match(
      lines[1]!,
      /^envs\/env\.py:16:16 error task-bad-args solve\(\) got an unexpected keyword argument "destination"/,
    );
    assert.match(c.err(), /1 error\(s\), 1 warning\(s\)/);
  });

  test('a single file is checked against the whole workspace (cross-module links resolve)', async () => {
    const c = capture(join(FIXTURES, 'lsp-basic'));
    assert.equal(await runCheck(['--json', 'envs/judge.py'], c.io), 0);
    assert.deepEqual(JSON.parse(c.out()), []);
  });

  test('exit 0 on a clean workspace with a two-environment verifier', async () => {
    const c = capture(join(FIXTURES, 'lsp-clean'));
    assert.equal(await runCheck(['--json'], c.io), 0);
    assert.deepEqual(
      (JSON.parse(c.out()) as CheckFinding[]).map((f) => f.code),
      [],
    );
  });

  test("a task's compose file that reaches this machine is a warning at its key, before anything runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hud-check-compose-'));
    try {
      cpSync(join(FIXTURES, 'lsp-clean'), dir, { recursive: true });
      mkdirSync(join(dir, 'task', 'environment'), { recursive: true });
      mkdirSync(join(dir, 'task', 'tests'), { recursive: true });
      writeFileSync(join(dir, 'task', 'task.toml'), '[verifier]\nenvironment_mode = "separate"\n');
      writeFileSync(join(dir, 'task', 'instruction.md'), 'Say hi.\n');
      writeFileSync(join(dir, 'task', 'tests', 'test.sh'), 'exit 0\n');
      writeFileSync(join(dir, 'task', 'tests', 'Dockerfile'), 'FROM base\n');
      writeFileSync(
        join(dir, 'task', 'environment', 'docker-compose.yaml'),
        'services:\n  main:\n    build: .\n    volumes: ["/var/run/docker.sock:/var/run/docker.sock"]\n',
      );
      const c = capture(dir);
      assert.equal(await runCheck(['task'], c.io), 0);
      assert.match(
        c.out(),
        /^task\/environment\/docker-compose\.yaml:4:5 warning compose-reaches-host service "main" binds \/var\/run\/docker\.sock, which holds the Docker socket: .*\(fix: /m,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('usage errors exit 2', async () => {
    const bad = capture(FIXTURES);
    assert.equal(await runCheck(['--nope'], bad.io), 2);
    assert.match(bad.err(), /--nope/);
    const missing = capture(FIXTURES);
    assert.equal(await runCheck(['does/not/exist'], missing.io), 2);
    assert.match(missing.err(), /does\/not\/exist does not exist/);
  });

  test('excluded folders (node_modules, .venv, ...) are not checked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hud-check-'));
    try {
      cpSync(join(FIXTURES, 'lsp-clean'), dir, { recursive: true });
      const bad = 'from hud import Environment\ne = Environment("x")\n@e.template()\ndef bad():\n    return 1\n';
      for (const skip of ['node_modules/pkg', '.venv/lib', '__pycache__']) {
        mkdirSync(join(dir, skip), { recursive: true });
        writeFileSync(join(dir, skip, 'env.py'), bad);
      }
      writeFileSync(join(dir, 'bad.py'), bad);
      const c = capture(dir);
      assert.equal(await runCheck(['--json'], c.io), 1);
      assert.deepEqual(
        (JSON.parse(c.out()) as CheckFinding[]).map((f) => f.file),
        ['bad.py'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('golden data: no warning once the verifier reads its expected value from verifier-only/ (the bundled example)', async () => {
  const c = capture(join(__dirname, '..', '..', '..', 'examples'));
  assert.equal(await runCheck(['--json'], c.io), 0);
  assert.deepEqual(
    (JSON.parse(c.out()) as CheckFinding[]).filter((f) => f.code === 'verifier-args-in-actor-files'),
    [],
  );
});

/** Two tasks: `alone` grades itself (line 12), `judged` has a verifier in an environment of its own. */
const SELF_AND_VERIFIED = [
  'from hud import Environment',
  'env = Environment("box")',
  'judge = Environment("judge")',
  '@env.template(id="t")',
  'async def t():',
  '    a = yield "go"',
  '    yield 1.0',
  '@judge.template(id="v")',
  'async def v():',
  '    r = yield ""',
  '    yield 1.0',
  'alone = t()',
  'judged = t()',
  'judged.verifier = v()',
  '',
].join('\n');

test('a root-agent environment whose task grades itself: check suggests a verifier environment', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-check-root-'));
  try {
    writeFileSync(join(dir, 'Dockerfile'), 'FROM python:3.11-slim\nLABEL dev.hud-studio.agent-user=root\n');
    writeFileSync(join(dir, 'env.py'), SELF_AND_VERIFIED);
    const c = capture(dir);
    assert.equal(await runCheck(['--json'], c.io), 0);
    const root = (JSON.parse(c.out()) as CheckFinding[]).filter((f) => f.code === 'root-agent-forgeable');
    assert.deepEqual(
      root.map((f) => [f.file, f.line]),
      [['env.py', 12]],
    );
    assert.match(root[0]!.message, /verifier in an environment of its own/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a Dockerfile that puts the workspace on PATH: check says the self-graded task's reward will be forgeable", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-check-path-'));
  const findings = async (dockerfile: string): Promise<CheckFinding[]> => {
    writeFileSync(join(dir, 'Dockerfile'), dockerfile);
    const c = capture(dir);
    await runCheck(['--json'], c.io);
    return (JSON.parse(c.out()) as CheckFinding[]).filter((f) => f.code === 'search-path-forgeable');
  };
  try {
    writeFileSync(join(dir, 'env.py'), SELF_AND_VERIFIED);
    const venv = await findings(
      'FROM python:3.11-slim\nENV VIRTUAL_ENV=/workspace/.venv\nENV PATH="$VIRTUAL_ENV/bin:$PATH"\n',
    );
    assert.deepEqual(
      venv.map((f) => [f.file, f.line, f.severity]),
      [['env.py', 12, 'warning']],
    );
    assert.match(venv[0]!.message, /puts "\/workspace\/\.venv\/bin" on PATH/);
    assert.deepEqual(await findings('FROM python:3.11-slim\nENV PATH /opt/venv/bin:/tmp/../usr/bin:$PATH\n'), []);
    assert.equal((await findings('FROM x\nENV LANG=C.UTF-8 \\\n    PATH=/tmp/tools:/usr/bin\n')).length, 1);
    // A relative entry is a folder under wherever a grader runs: the workspace, for one that runs there.
    const relative = await findings('FROM x\nENV PATH=bin:/usr/bin\n');
    assert.match(relative[0]?.message ?? '', /puts "bin" \(relative: under the folder a grader runs in\) on PATH/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the PATH a Dockerfile leaves: both forms of ENV, quotes, expansion, continued lines', () => {
  assert.equal(dockerfilePath('FROM x\n'), undefined);
  assert.equal(dockerfilePath('ENV PATH /a:/b'), '/a:/b');
  assert.equal(dockerfilePath("ENV V=/v PATH='$V/bin'"), '$V/bin');
  assert.equal(dockerfilePath('ENV V=/v\nENV PATH="${V}/bin:$PATH"'), '/v/bin:$PATH');
  assert.equal(dockerfilePath('ENV A=1 \\\n  PATH=/w/bin\nENV PATH=/x:$PATH'), '/x:/w/bin');
});
