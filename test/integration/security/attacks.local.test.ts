/**
 * Attacks from the actor's seat on the local runtime (docs/security.md),
 * which sandboxes agents with bubblewrap: each agent answers wrongly and
 * then tries to reach past its seat. Missing bubblewrap is a failure.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import { readTrace } from '../../../client/src/engine/trace/store';
import { REPO_ROOT, exitOf } from '../cli/cliHarness';
import { FIXTURES } from '../engine-local/rules';
import { tempDir } from '../docker/support';
import { completedRollout } from './rollout';

const SELF_GRADED = join(__dirname, 'fixtures', 'self_graded', 'env.py');

before(() => {
  assert.ok(bubblewrap(), 'the local runtime needs bubblewrap for these tests (apt-get install -y bubblewrap)');
});

function processesRunning(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(marker)) found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A completed local rollout of `ref` with `command` in the agent's seat, and its trace's text. */
async function attack(ref: string, command: string) {
  const json = await completedRollout(ref, command, { runtime: 'local', timeoutS: 120, traces: 'local-attack' });
  return { ...json, text: readFileSync(json.trace, 'utf8') };
}

test("the agent reads /proc/$PPID/environ: none of the CLI's variables are there, so none reach the trace", async () => {
  const value = 'cli-only-7d1c2e9b';
  process.env['HUD_STUDIO_CLI_ONLY'] = value;
  try {
    const r = await attack(
      `${SELF_GRADED}::task`,
      'cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr "\\0" "\\n"; echo wrong',
    );
    assert.equal(r.reward, 0);
    assert.ok(!r.text.includes(value), "the CLI's variable reached the trace");
    assert.equal(r.forgeable, false, 'a sandboxed agent cannot forge the self-graded reward');
  } finally {
    delete process.env['HUD_STUDIO_CLI_ONLY'];
  }
});

test("a setsid child of the agent does not outlive the actor phase, nor reach the verifier's copy of env.py", async () => {
  const marker = '301.123';
  const rewrite =
    'for i in $(seq 1 600); do for f in /tmp/hud-studio-*-verifier-*/work/env.py; do [ -f "$f" ] && ' +
    'sed -i "s/reward=1.0 if passed else 0.0/reward=1.0/" "$f"; done; sleep 0.05; done';
  const r = await attack(
    `${FIXTURES.twoEnv}::task`,
    `setsid sh -c '${rewrite}' </dev/null >/dev/null 2>&1 & setsid sleep ${marker} </dev/null >/dev/null 2>&1 & echo wrong`,
  );
  assert.equal(r.reward, 0, 'the verifier graded its own, untouched env.py');
  assert.deepEqual(processesRunning(`sleep ${marker}`), [], 'nothing the agent started is left');
  assert.equal(readTrace(r.trace).answer, 'wrong');
});

test("the agent cannot see the environment's files, the host's processes, or its server's port", async () => {
  const r = await attack(
    `${SELF_GRADED}::task`,
    'ls /tmp/hud-studio-*/work/env.py 2>/dev/null; grep -rl hunter2 /tmp 2>/dev/null; ls /proc | grep -c "^[0-9]"; ' +
      'python3 -c "import socket; [print(l) for l in open(\'/proc/net/tcp\').read().splitlines()[1:]]"; echo wrong',
  );
  assert.equal(r.reward, 0);
  const answer = String(readTrace(r.trace).answer);
  assert.doesNotMatch(answer, /env\.py|hunter2/);
  const lines = answer.split('\n');
  // Its own shell, ls and grep under the sandbox's init: the host runs hundreds.
  assert.ok(Number(lines[0]) <= 5, `the agent saw ${lines[0]} processes`);
  assert.equal(lines.length, 2, `no TCP socket of the host is visible: ${answer}`);
});

test('the agent has no /var: no spool of cron or at to leave a job in for the host to run later', async () => {
  const r = await attack(
    `${SELF_GRADED}::task`,
    'ls -d /var/spool/cron /var/spool/cron/atjobs /var 2>/dev/null; echo checked',
  );
  assert.equal(r.reward, 0);
  assert.equal(readTrace(r.trace).answer, 'checked');
});

test('run from a terminal, the agent has no controlling terminal to type into (/dev/tty does not open)', async () => {
  // script(1) gives the CLI a pseudo-terminal as a person's shell would; an agent reaching it could
  // queue keystrokes (TIOCSTI) for the user's shell once the CLI exits.
  const dir = tempDir('local-tty');
  const probe = '( exec 3<>/dev/tty ) 2>/dev/null && echo tty-open || echo no-tty';
  const argv = [process.execPath, '--import', 'tsx', join(REPO_ROOT, 'client', 'src', 'cli.ts'), 'run'];
  argv.push(`${FIXTURES.twoEnv}::task`, '--command', probe, '--runtime', 'local', '--trace-dir', dir, '--json');
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = await exitOf(spawn('script', ['-qec', quoted, '/dev/null'], { cwd: REPO_ROOT }));
  assert.equal(r.code, 0, r.stdout + r.stderr);
  // The terminal merges stdout and stderr: the trace's path is read from the JSON's line.
  const trace = /"trace": "([^"]+)"/.exec(r.stdout)?.[1];
  assert.ok(trace, r.stdout);
  assert.equal(readTrace(trace).answer, 'no-tty');
});
