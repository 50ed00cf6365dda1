/**
 * Floods: a 20 MB line without a newline and 200 MB of output, on a real
 * Docker engine, through the real CLI in a process of its own. Time must stay
 * linear, the CLI's memory bounded, the trace small, and nothing lost: the
 * whole log is in the side file beside the trace.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { CUT_MARK } from '../../../client/src/engine/trace/boundedLog';
import { dockerReady } from '../docker/support';
import {
  PORT_SPOOF_ENV,
  REPO_ROOT,
  assertJsonRun,
  assertRewarded,
  containersOwnedBy,
  measured,
  runMeasured,
  scratch,
  spawnMeasured,
} from './support';

const MB = 1_000_000;
const figures: Record<string, unknown> = {};

/** The command agent writes 200 MB to stderr, in lines of 100 bytes (`char` 99 times and a newline), then answers. */
function flood200MB(runtime: 'docker' | 'local', traceDir: string, char: string) {
  return spawnMeasured({
    task: 'echo_task',
    command: `yes ${char.repeat(99)} | head -c ${200 * MB} >&2; echo ok`,
    runtime,
    traceDir,
  });
}

after(() => {
  // The README's reliability figures come from this line.
  process.stdout.write(`# fault-suite figures ${JSON.stringify(figures)}\n`);
});

describe('output floods (Docker)', () => {
  before(dockerReady);

  test('a 20 MB line without a newline: linear time, small trace, the whole line beside it', async () => {
    const dir = scratch('line-');
    const baseline = await runMeasured({ task: 'echo_task', command: 'echo ok', runtime: 'docker', traceDir: dir });
    assert.equal(baseline.code, 0, baseline.stderr.slice(-2000));
    const child = spawnMeasured({
      task: 'echo_task',
      command: `head -c ${20 * MB} /dev/zero | tr '\\0' a >&2; echo ok`,
      runtime: 'docker',
      traceDir: dir,
    });
    const r = await measured(child);
    const json = assertRewarded(r);
    const extraMs = r.ms - baseline.ms;
    figures['line20MB'] = { ms: r.ms, baselineMs: baseline.ms, extraMs, maxRssMb: r.maxRssMb };
    // It took 85 s before the splitter was linear; linear work is a few seconds on a loaded 2-core machine.
    assert.ok(extraMs < 20_000, `the 20 MB line cost ${extraMs} ms over a plain run`);
    const tracePath = json['trace'] as string;
    assert.ok(statSync(tracePath).size < 6 * MB, `trace is ${statSync(tracePath).size} bytes`);
    const actor = readTrace(tracePath).phases.find((p) => p.name === 'actor')!;
    assert.ok(
      actor.logs.some((l) => l.text.startsWith(CUT_MARK)),
      'the cut is marked',
    );
    assert.ok(actor.logFile, 'the phase names its whole log');
    const whole = readFileSync(join(dir, actor.logFile), 'utf8');
    // The line arrives in pieces of at most 1 MiB, each on a line of its own.
    const pieces = whole.split('\n').flatMap((l) => /^\[agent\] \[stderr\] (a+)$/.exec(l)?.[1] ?? []);
    assert.equal(pieces.join('').length, 20 * MB, 'every byte of the line is in the side file');
    assert.deepEqual(await containersOwnedBy(child.pid!), [], 'nothing left');
  });

  test('200 MB of output: the CLI grows by less than 160 MB over a plain run, and the trace stays under 10 MB', async () => {
    const dir = scratch('flood-');
    const baseline = await runMeasured({ task: 'echo_task', command: 'echo ok', runtime: 'docker', traceDir: dir });
    assert.equal(baseline.code, 0, baseline.stderr.slice(-2000));
    const child = flood200MB('docker', dir, 'x');
    const r = await measured(child);
    const json = assertRewarded(r);
    const tracePath = json['trace'] as string;
    const traceBytes = statSync(tracePath).size;
    const growthMb = r.maxRssMb - baseline.maxRssMb;
    figures['output200MB'] = { ms: r.ms, maxRssMb: r.maxRssMb, baselineRssMb: baseline.maxRssMb, growthMb, traceBytes };
    // Lines kept as heap objects made V8 tenure every line: the peak grew by about 230 MB, close to the output's size.
    assert.ok(
      growthMb < 160,
      `peak memory ${r.maxRssMb} MB, ${growthMb} MB over a plain run's ${baseline.maxRssMb} MB`,
    );
    assert.ok(r.maxRssMb < 400, `peak memory ${r.maxRssMb} MB`);
    assert.ok(traceBytes < 10 * MB, `trace is ${traceBytes} bytes`);
    const actor = readTrace(tracePath).phases.find((p) => p.name === 'actor')!;
    const whole = statSync(join(dir, actor.logFile!)).size;
    // Each line of 100 bytes is kept with a "[agent] [stderr] " prefix: nothing lost.
    assert.ok(whole >= 200 * MB, `side file holds ${whole} bytes`);
    assert.deepEqual(await containersOwnedBy(child.pid!), [], 'nothing left');
  });

  test("200 MB of a Harbor agent's and tests' output: the CLI's memory stays bounded, the trial folder keeps it whole", async () => {
    const dir = scratch('flood-harbor-');
    // shared-basic, with tests that print the agent's file back (as tests that show a diff do).
    const task = join(dir, 'task');
    cpSync(join(REPO_ROOT, 'test', 'fixtures', 'harbor', 'shared-basic'), task, { recursive: true });
    writeFileSync(
      join(task, 'tests', 'test.sh'),
      '#!/bin/bash\nmkdir -p /logs/verifier\ncat /app/greeting.txt\necho 0 > /logs/verifier/reward.txt\n',
      { mode: 0o755 },
    );
    const run = (command: string) => runMeasured({ env: task, command, runtime: 'docker', traceDir: dir });
    const baseline = await run('echo hello > greeting.txt');
    assert.equal(baseline.code, 0, baseline.stderr.slice(-2000));
    const r = await run(
      `yes ${'x'.repeat(99)} | head -c ${100 * MB} >&2; yes ${'y'.repeat(99)} | head -c ${100 * MB} > greeting.txt; echo ok`,
    );
    const growthMb = r.maxRssMb - baseline.maxRssMb;
    figures['harborOutput200MB'] = { ms: r.ms, maxRssMb: r.maxRssMb, baselineRssMb: baseline.maxRssMb, growthMb };
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    assert.ok(
      growthMb < 160,
      `peak memory ${r.maxRssMb} MB, ${growthMb} MB over a plain run's ${baseline.maxRssMb} MB`,
    );
    const trialDir = readTrace((JSON.parse(r.stdout) as { trace: string }).trace).harbor!.trialDir!;
    assert.ok(statSync(join(trialDir, 'agent', 'command.txt')).size >= 100 * MB, "the agent's output is kept whole");
    assert.ok(statSync(join(trialDir, 'verifier', 'test-stdout.txt')).size >= 100 * MB, "so is the tests'");
  });

  test('an environment that prints HUD_SERVE_PORT=... at import does not redirect the engine', async () => {
    for (const runtime of ['docker', 'local'] as const) {
      const r = await runMeasured({ env: PORT_SPOOF_ENV, answer: 'hi', runtime, traceDir: scratch('spoof-') });
      const json = assertRewarded(r, `${runtime}: `);
      const logs = readTrace(json['trace'] as string).phases.flatMap((p) => p.logs.map((l) => l.text));
      assert.ok(
        logs.some((t) => t.includes('HUD_SERVE_PORT=1')),
        `${runtime}: the environment's own print is kept as a log line`,
      );
    }
  });
});

describe('local runtime output', () => {
  test('200 MB of output on the local runtime: memory bounded, nothing lost', async () => {
    const dir = scratch('local-flood-');
    const r = await measured(flood200MB('local', dir, 'y'));
    const json = assertRewarded(r);
    figures['output200MBLocal'] = {
      ms: r.ms,
      maxRssMb: r.maxRssMb,
      traceBytes: statSync(json['trace'] as string).size,
    };
    assert.ok(r.maxRssMb < 400, `peak memory ${r.maxRssMb} MB`);
    const actor = readTrace(json['trace'] as string).phases.find((p) => p.name === 'actor')!;
    assert.ok(actor.logFile);
    assert.ok(statSync(join(dir, actor.logFile)).size >= 200 * MB);
  });

  test('a last line without a newline is kept (server and agent)', async () => {
    const dir = scratch('lastline-');
    const r = await runMeasured({
      task: 'last_line',
      command: "printf 'agent tail without newline' >&2; echo ok",
      runtime: 'local',
      traceDir: dir,
    });
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const logs = readTrace(assertJsonRun(r)['trace'] as string).phases.flatMap((p) => p.logs.map((l) => l.text));
    assert.ok(
      logs.some((t) => t.includes('server says goodbye without a newline')),
      logs.join('\n'),
    );
    assert.ok(
      logs.some((t) => t.includes('agent tail without newline')),
      logs.join('\n'),
    );
  });
});
