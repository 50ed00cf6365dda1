import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { FIXTURES, scratchDir } from '../engine-local/rules';
import { REPO_ROOT, cli, exitOf, spawnCli } from './cliHarness';

const traces = (): string => scratchDir('hs-cli-traces-');
const local = ['--runtime', 'local'];

describe('hud-studio run', () => {
  test('--json prints exactly the documented object; exit 0 when the rollout completed', async () => {
    const dir = traces();
    const r = await cli(['run', FIXTURES.sameEnv, '--answer', 'secret', ...local, '--trace-dir', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(json), ['status', 'reward', 'subscores', 'phases', 'error', 'forgeable', 'trace']);
    assert.equal(json['status'], 'completed');
    assert.equal(json['reward'], 1);
    assert.deepEqual(json['subscores'], []);
    assert.equal(json['error'], null);
    const phases = json['phases'] as Record<string, unknown>[];
    assert.deepEqual(
      phases.map((p) => Object.keys(p)),
      [
        ['name', 'substrate', 'reused', 'status', 'startedAt', 'endedAt'],
        ['name', 'substrate', 'reused', 'status', 'startedAt', 'endedAt'],
      ],
    );
    assert.deepEqual(
      phases.map((p) => [p['name'], p['reused'], p['status']]),
      [
        ['actor', false, 'completed'],
        ['verifier', true, 'completed'],
      ],
    );
    assert.equal((phases[0]!['substrate'] as { isolation: string }).isolation, 'process');
    const trace = json['trace'] as string;
    assert.ok(trace.startsWith(dir) && trace.endsWith('.hudtrace.json'));
    assert.equal(readTrace(trace).status, 'completed');
  });

  test('a wrong answer still completes (exit 0, reward 0); two environments give two substrates', async () => {
    const r = await cli([
      'run',
      `${FIXTURES.twoEnv}::task`,
      '--answer',
      'wrong',
      ...local,
      '--trace-dir',
      traces(),
      '--json',
    ]);
    assert.equal(r.code, 0);
    const json = JSON.parse(r.stdout) as { reward: number; phases: { substrate: { id: string }; reused: boolean }[] };
    assert.equal(json.reward, 0);
    assert.notEqual(json.phases[0]!.substrate.id, json.phases[1]!.substrate.id);
  });

  test('an errored rollout exits 1 with the phase and why', async () => {
    const r = await cli([
      'run',
      `${FIXTURES.rules}::verifier_fails`,
      '--answer',
      'x',
      ...local,
      '--trace-dir',
      traces(),
      '--json',
    ]);
    assert.equal(r.code, 1);
    const json = JSON.parse(r.stdout) as { status: string; reward: null; error: { phase: string; message: string } };
    assert.equal(json.status, 'error');
    assert.equal(json.reward, null);
    assert.equal(json.error.phase, 'verifier');
    assert.match(json.error.message, /verifier exploded/);
  });

  test('human output shows each phase, its logs, the grade and the reward', async () => {
    const r = await cli(['run', `${FIXTURES.twoEnv}::task`, '--answer', 'secret', ...local, '--trace-dir', traces()]);
    assert.equal(r.code, 0, r.stderr);
    for (const text of [
      '┌ actor phase on fresh local substrate',
      '┌ verifier phase on fresh local substrate',
      "[stderr] [hud-server] serving environment 'judge'",
      'prompt: Write the secret',
      'answer: secret',
      'actor grade: 0.00 (provisional)',
      'verifier grade: 1.00',
      '"saw_actor_file":false',
      'reward 1.00',
      'trace: ',
    ]) {
      assert.ok(r.stdout.includes(text), `missing "${text}" in:\n${r.stdout}`);
    }
    // Each phase's lines come under its header, its substrate's first lines included.
    const lines = r.stdout.split('\n');
    const verifierHeader = lines.findIndex((l) => l.startsWith('┌ verifier phase'));
    const verifierCopy = lines.findIndex((l) => /\[engine\] local substrate: private copy .*-verifier-/.test(l));
    assert.ok(verifierCopy > verifierHeader, `the verifier substrate's first line is above its header:\n${r.stdout}`);
    assert.ok(
      lines.slice(verifierHeader).some((l) => l === "│   [engine] served by HUD Studio's bundled runtime"),
      r.stdout,
    );
    assert.ok(lines.findIndex((l) => l.startsWith('└ actor phase')) < verifierHeader, r.stdout);
  });

  test("an environment's folder runs its env.py", async () => {
    const r = await cli([
      'run',
      dirname(FIXTURES.sameEnv),
      '--answer',
      'secret',
      ...local,
      '--trace-dir',
      traces(),
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout) as { reward: number; trace: string };
    assert.equal(json.reward, 1);
    assert.equal(readTrace(json.trace).task.ref, `${FIXTURES.sameEnv}::task`);
  });

  test('usage errors exit 2 with a fix', async () => {
    const cases: [string[], RegExp][] = [
      [['run', FIXTURES.rules, ...local], /defines 9 tasks; say which one:[\s\S]*::verifier_fails/],
      [['run'], /exactly one PATH/],
      [['run', 'nowhere/env.py::task'], /nowhere\/env.py: no such file/],
      [['run', 'docs'], /docs is a folder with neither env\.py nor task\.toml \(fix: give an env\.py/],
      [['run', FIXTURES.sameEnv, '--frobnicate'], /Unknown option '--frobnicate'/],
      [['run', FIXTURES.sameEnv, '--runtime', 'moon'], /unknown runtime "moon"/],
      [
        ['run', FIXTURES.sameEnv, '--agent', 'fixed', ...local],
        /the fixed agent has no answer \(give the answer with --answer TEXT\)/,
      ],
      [['run', FIXTURES.sameEnv, '--timeout', '0'], /--timeout must be a positive number/],
      [
        ['run', `${FIXTURES.sameEnv}::no_such`, ...local, '--answer', 'x'],
        /has no task "no_such"; its tasks are:[\s\S]*::task/,
      ],
      [['eval'], /at least one PATH/],
      [['eval', FIXTURES.sameEnv, '--group', '0'], /--group must be a positive integer/],
      // A batch with nothing that can answer would score every run 0: refused before it runs.
      [
        ['eval', FIXTURES.sameEnv, ...local],
        /eval has no way to produce answers[\s\S]*--agent fixed[\s\S]*--agent oracle/,
      ],
      [['run', FIXTURES.sameEnv, '--agent', 'oracle', ...local], /an env\.py task has no oracle/],
      [
        ['run', FIXTURES.sameEnv, '--agent', 'moon', ...local],
        /unknown agent "moon"[\s\S]*fixed, command, nop, llm or oracle/,
      ],
      [['launch'], /unknown command "launch"/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli([...argv, '--trace-dir', traces()]);
      assert.equal(r.code, 2, `${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, argv.join(' '));
      // Said once, on stderr: not also as the rollout's last line (a setup error) on stdout.
      assert.doesNotMatch(r.stdout, message, argv.join(' '));
    }
  });

  test('--help, --version and command help', async () => {
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /hud-studio run PATH\[::REF\]/);
    assert.match(help.stdout, /hud-studio eval PATH/);
    const version = await cli(['--version']);
    assert.equal(
      version.stdout.trim(),
      (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string })
        .version,
    );
    assert.match(help.stdout, /--agent fixed\|command\|nop\|llm\|oracle/);
    assert.match(help.stdout, /hud-studio eval PATH\.\.\. \[--agent KIND\] \[--answer TEXT\]/);
    const runHelp = (await cli(['run', '--help'])).stdout;
    assert.match(runHelp, /--runtime R/);
    for (const kind of ['fixed', 'command', 'nop', 'llm', 'oracle'])
      assert.match(runHelp, new RegExp(`^ +${kind} +\\S`, 'm'), kind);
    assert.match((await cli(['eval', '--help'])).stdout, /--max-concurrent/);
    assert.equal((await cli(['check', '--help'])).code, 0, 'check is dispatched to the language-server analysis');
  });

  test('with no agent chosen, run says it runs the nop agent', async () => {
    const r = await cli(['run', FIXTURES.sameEnv, ...local, '--trace-dir', traces(), '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /no agent chosen: running with the nop agent/);
    assert.equal((JSON.parse(r.stdout) as { reward: number }).reward, 0);
  });

  test('as a real process: exit codes 0 and 1', async () => {
    const ok = await exitOf(
      spawnCli(['run', FIXTURES.sameEnv, '--answer', 'secret', ...local, '--trace-dir', traces(), '--json']),
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal((JSON.parse(ok.stdout) as { reward: number }).reward, 1);
    const bad = await exitOf(
      spawnCli([
        'run',
        `${FIXTURES.rules}::verifier_fails`,
        '--answer',
        'x',
        ...local,
        '--trace-dir',
        traces(),
        '--json',
      ]),
    );
    assert.equal(bad.code, 1, bad.stderr);
  });

  test('the bundle (bin/hud-studio.js -> dist/cli.js) finds the runtime from dist/, and auto picks Docker when its daemon answers', async () => {
    const bin = join(REPO_ROOT, 'bin', 'hud-studio.js');
    assert.ok(existsSync(join(REPO_ROOT, 'dist', 'cli.js')), 'npm run build first (scripts/test.mjs does)');
    const r = await exitOf(
      spawn(
        process.execPath,
        [
          bin,
          'run',
          `${FIXTURES.twoEnv}::task`,
          '--answer',
          'secret',
          '--runtime',
          'auto',
          '--trace-dir',
          scratchDir('bundle-'),
          '--json',
        ],
        { cwd: REPO_ROOT },
      ),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^runtime: docker \(daemon answered at .+\)$/m);
    const json = JSON.parse(r.stdout) as {
      reward: number;
      phases: { substrate: { provider: string; isolation: string } }[];
    };
    assert.equal(json.reward, 1);
    assert.deepEqual(
      json.phases.map((p) => [p.substrate.provider, p.substrate.isolation]),
      [
        ['docker', 'container'],
        ['docker', 'container'],
      ],
    );
  });

  test('Ctrl-C cancels: exit 130, trace status cancelled, nothing left running', async () => {
    const dir = traces();
    const child = spawnCli([
      'run',
      `${FIXTURES.twoEnv}::task`,
      '--command',
      'sleep 60; echo secret',
      ...local,
      '--trace-dir',
      dir,
    ]);
    const done = exitOf(child);
    const seen = await outputUntil(child, 'actor prompt: completed');
    const id = /substrate (hud-studio-\S+)/.exec(seen)![1]!;
    await waitUntil("the agent's sleep in the substrate", () => sleepingIn(id));
    child.kill('SIGINT');
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /cancelling/);
    const files = readdirSync(dir).filter((f) => f.endsWith('.hudtrace.json'));
    assert.equal(files.length, 1);
    const trace = readTrace(join(dir, files[0]!));
    assert.equal(trace.status, 'cancelled');
    const substrateId = trace.phases[0]!.substrate!.id;
    assert.equal(existsSync(join(tmpdir(), substrateId)), false, 'the private folder is gone');
    assert.deepEqual(processesMentioning(substrateId), [], 'no process of the substrate survives');
  });

  test('a CLI killed outright leaves a substrate that the next Local run removes', async () => {
    // A temp folder of their own: any other Local run on this machine (another test run) sweeps the shared one.
    const tmp = scratchDir('killed-tmp-');
    const child = spawnCli(
      ['run', `${FIXTURES.twoEnv}::task`, '--command', 'sleep 60; echo secret', ...local, '--trace-dir', tmp],
      REPO_ROOT,
      { TMPDIR: tmp },
    );
    const done = exitOf(child);
    const seen = await outputUntil(child, 'actor prompt: completed');
    const id = /substrate (hud-studio-\S+)/.exec(seen)![1]!;
    child.kill('SIGKILL');
    await done;
    const left = join(tmp, id);
    assert.equal(existsSync(left), true, 'SIGKILL gave the CLI no chance to clean up');
    const next = await exitOf(
      spawnCli(
        ['run', FIXTURES.sameEnv, '--answer', 'secret', ...local, '--trace-dir', scratchDir('next-')],
        REPO_ROOT,
        {
          TMPDIR: tmp,
        },
      ),
    );
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stdout, new RegExp(`removed ${left}, left behind by a HUD Studio process that no longer runs`));
    assert.equal(existsSync(left), false);
    assert.deepEqual(processesMentioning(id), []);
  });

  test('output closed early (| head) cancels cleanly instead of crashing', async () => {
    // An agent that keeps talking: its log lines are the writes that find the pipe closed. Its
    // many children make its sandbox slow to empty, as load does: whatever waits for less is caught.
    const marker = '3600.417';
    const child = spawnCli([
      'run',
      `${FIXTURES.twoEnv}::task`,
      '--command',
      `for i in $(seq 1 100); do sleep ${marker} & done; while true; do echo tick; sleep 0.1; done`,
      ...local,
      '--trace-dir',
      scratchDir('epipe-'),
    ]);
    const done = exitOf(child);
    const seen = await outputUntil(child, 'actor prompt: completed');
    const id = /substrate (hud-studio-\S+)/.exec(seen)![1]!;
    child.stdout!.destroy();
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    assert.equal(existsSync(join(tmpdir(), id)), false);
    const left = [...processesMentioning(id), ...processesMentioning(`sleep\0${marker}`)];
    assert.deepEqual(
      left,
      [],
      left
        .map((p) => {
          try {
            return `${p}: ${readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ')} ${readFileSync(`/proc/${p}/stat`, 'utf8')}`;
          } catch {
            return p;
          }
        })
        .join('\n'),
    );
  });
});

function processesMentioning(text: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    });
}

/** Whether a `sleep` runs with its working folder inside the substrate `id` (the agent's command has started). */
function sleepingIn(id: string): boolean {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .some((p) => {
      try {
        return (
          readFileSync(`/proc/${p}/cmdline`, 'utf8').startsWith('sleep\0') &&
          readlinkSync(`/proc/${p}/cwd`).includes(id)
        );
      } catch {
        return false;
      }
    });
}

/** Polls until `check` holds; fails naming what it waited for. */
async function waitUntil(what: string, check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Everything the child printed on stdout up to (and including) the chunk holding `marker`. */
function outputUntil(child: ChildProcess, marker: string): Promise<string> {
  let seen = '';
  return new Promise((resolve) =>
    child.stdout!.on('data', (t: Buffer) => {
      seen += t.toString();
      if (seen.includes(marker)) resolve(seen);
    }),
  );
}
