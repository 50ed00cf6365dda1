/**
 * The record of a run when the trace folder fails, and the summary of a job
 * cut short: a read-only or full trace folder (real mounts: a read-only
 * tmpfs and a 1 MiB tmpfs filled up) makes `run` say why and exit non-zero
 * with its result still printed, and `eval` still prints its summary; after
 * Ctrl-C, the summary counts every run of the job, started or not.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobSummary } from '../../../client/src/engine/job';
import { assertJsonRun, measured, runMeasured, scratch, spawnMeasured } from './support';

const mounts: string[] = [];
after(() => {
  for (const m of mounts.reverse()) execFileSync('umount', ['-l', m]);
});

function tmpfs(options: string): string {
  const dir = scratch('mnt-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

function fullTmpfs(): string {
  const dir = tmpfs('size=1m');
  try {
    writeFileSync(join(dir, 'filler'), Buffer.alloc(2 * 1024 * 1024));
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, 'ENOSPC');
  }
  return dir;
}

describe('trace folder failures', () => {
  const cases = [
    { name: 'read-only', make: () => tmpfs('ro,size=1m'), why: /read-only file system|EROFS/i },
    { name: 'full', make: fullTmpfs, why: /no space left|ENOSPC/i },
  ];
  for (const c of cases) {
    test(`run into a ${c.name} trace folder: says why, exits 1, the result is still printed`, async () => {
      const dir = c.make();
      const run = { task: 'echo_task', answer: 'ok', runtime: 'local', traceDir: dir } as const;
      const r = await runMeasured(run);
      assert.equal(r.code, 1, r.stderr.slice(-2000));
      const json = assertJsonRun(r);
      assert.equal(json['status'], 'completed');
      assert.equal(json['reward'], 1, 'the result stands');
      assert.equal(json['trace'], null);
      assert.match(String(json['traceError']), c.why);
      assert.match(r.stderr, /no trace was written: cannot write the trace into/);
      const human = await runMeasured({ ...run, human: true });
      assert.equal(human.code, 1);
      assert.match(human.stdout, /reward 1\.00/, 'the human output shows the result');
      assert.match(human.stderr, c.why);
    });

    test(`eval into a ${c.name} trace folder still prints its summary`, async () => {
      const dir = c.make();
      const r = await runMeasured({
        eval: true,
        task: 'echo_task',
        answer: 'ok',
        runtime: 'local',
        traceDir: dir,
        more: ['--group', '2'],
        human: true,
      });
      assert.equal(r.code, 1, r.stderr.slice(-2000));
      assert.match(r.stdout, /2 runs: 2 completed, 0 errored, 0 cancelled/);
      assert.match(r.stdout, /no trace: cannot write the trace/);
      assert.match(r.stderr, /cannot write the job summary/);
    });
  }
});

describe('Ctrl-C during eval', () => {
  test('the summary counts every run, including those never started; exit 130', async () => {
    const dir = scratch('sigint-');
    mkdirSync(dir, { recursive: true });
    // The agent is sandboxed (docs/security.md): its marker lands in its own workspace of a local substrate.
    const marker = `agent-started-${process.pid}`;
    const command = `touch ${marker}; sleep 60; echo ok`;
    const started = (): boolean =>
      readdirSync(tmpdir()).some(
        (d) => /^hud-studio-.+-actor-/.test(d) && existsSync(join(tmpdir(), d, 'workspace', marker)),
      );
    const child = spawnMeasured({
      eval: true,
      task: 'echo_task',
      command,
      runtime: 'local',
      traceDir: dir,
      more: ['--group', '4'],
    });
    const done = measured(child);
    // The local runtime runs the agent on this machine: its marker says the first run is under way.
    const deadline = Date.now() + 60_000;
    while (!started()) {
      assert.ok(Date.now() < deadline, 'the first run never started its agent');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGINT');
    const r = await done;
    assert.equal(r.code, 130, r.stderr.slice(-2000));
    const s = JSON.parse(r.stdout) as JobSummary;
    assert.equal(s.total, 4, 'every run the job asked for is counted');
    assert.equal(s.cancelled, 4);
    assert.equal(s.tasks[0]!.runs.filter((run) => run.notStarted).length, 3);
    assert.equal(
      readdirSync(dir).filter((f) => f.endsWith('.hudtrace.json')).length,
      1,
      'the started run wrote its trace',
    );
  });
});
