/**
 * Faults during a rollout, on a real Docker engine and the local runtime,
 * through the real CLI: templates that never yield, a server that dies
 * mid-grade, containers killed mid-agent and mid-grade, two runs at once, a
 * CLI killed outright. Each ends with a clear error (or the right result),
 * and nothing is left: no container of the run, no process.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { dockerReady } from '../docker/support';
import {
  assertJsonRun,
  assertRewarded,
  containersOwnedBy,
  measured,
  runMeasured,
  scratch,
  spawnMeasured,
} from './support';

/** Resolves with the output seen so far once `text` appears on stdout. */
function stdoutUntil(child: ChildProcess, text: string, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`never saw "${text}" in:\n${seen}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
  });
}

async function killContainersOf(pid: number): Promise<number> {
  const ids = await containersOwnedBy(pid);
  await Promise.all(
    ids.map((id) =>
      dockerClient()
        .getContainer(id)
        .kill()
        .catch(() => undefined),
    ),
  );
  return ids.length;
}

describe('phase faults', () => {
  before(dockerReady);

  for (const runtime of ['docker', 'local'] as const) {
    test(`${runtime}: a template that never yields is stopped by the call limit`, async () => {
      for (const [task, call] of [
        ['hang_start', 'tasks.start'],
        ['hang_grade', 'tasks.grade'],
      ] as const) {
        const child = spawnMeasured({
          task,
          answer: 'x',
          runtime,
          traceDir: scratch('hang-'),
          more: ['--call-timeout', '2'],
        });
        const r = await measured(child);
        assert.equal(r.code, 1, r.stderr.slice(-2000));
        const json = assertJsonRun(r);
        assert.equal(json['status'], 'error');
        const error = json['error'] as { phase: string; message: string };
        assert.equal(error.phase, 'actor');
        assert.match(error.message, new RegExp(`${call.replace('.', '\\.')} timed out after 2`));
        assert.ok(r.ms < 60_000, `took ${r.ms} ms`);
        assert.deepEqual(await containersOwnedBy(child.pid!), [], 'nothing left');
      }
    });
  }

  test('docker: a server that dies mid-grade is an actor error; nothing is left', async () => {
    const child = spawnMeasured({ task: 'crash_grade', answer: 'x', runtime: 'docker', traceDir: scratch('crash-') });
    const r = await measured(child);
    assert.equal(r.code, 1, r.stderr.slice(-2000));
    const json = assertJsonRun(r);
    assert.equal((json['error'] as { phase: string }).phase, 'actor');
    assert.ok(typeof json['trace'] === 'string', 'the trace is still written');
    assert.deepEqual(await containersOwnedBy(child.pid!), []);
  });

  test('docker: the container killed mid-agent and mid-grade ends the run with an error', async () => {
    const cases = [
      { task: 'echo_task', agent: { command: 'sleep 120; echo ok' }, when: 'actor prompt: completed' },
      { task: 'slow', agent: { answer: 'x' }, when: 'answer: x' },
    ];
    for (const c of cases) {
      const child = spawnMeasured({
        task: c.task,
        ...c.agent,
        runtime: 'docker',
        traceDir: scratch('killed-'),
        human: true,
      });
      const done = measured(child);
      await stdoutUntil(child, c.when);
      assert.ok((await killContainersOf(child.pid!)) >= 1, 'there was a container to kill');
      const r = await done;
      assert.equal(r.code, 1, `${c.task}: ${r.stdout.slice(-2000)}`);
      assert.match(r.stdout, /trace: /, 'the trace of the failed run is written');
      assert.ok(r.ms < 90_000, `${c.task} took ${r.ms} ms`);
      assert.deepEqual(await containersOwnedBy(child.pid!), [], `${c.task}: nothing left`);
    }
  });

  test('docker: two runs at once both complete on their own containers', async () => {
    const a = spawnMeasured({ task: 'echo_task', answer: 'ok', runtime: 'docker', traceDir: scratch('two-') });
    const b = spawnMeasured({ task: 'echo_task', answer: 'ok', runtime: 'docker', traceDir: scratch('two-') });
    const [ra, rb] = await Promise.all([measured(a), measured(b)]);
    for (const r of [ra, rb]) assertRewarded(r);
    const ids = [ra, rb].map((r) => (assertJsonRun(r)['phases'] as { substrate: { id: string } }[])[0]!.substrate.id);
    assert.notEqual(ids[0], ids[1]);
    assert.deepEqual([...(await containersOwnedBy(a.pid!)), ...(await containersOwnedBy(b.pid!))], []);
  });

  test('docker: a CLI killed outright leaves containers that the next run removes', async () => {
    const child = spawnMeasured({
      task: 'echo_task',
      command: 'sleep 120; echo ok',
      runtime: 'docker',
      traceDir: scratch('sigkill-'),
      human: true,
    });
    const done = measured(child);
    await stdoutUntil(child, 'actor prompt: completed');
    child.kill('SIGKILL');
    await done;
    const left = await containersOwnedBy(child.pid!);
    assert.ok(left.length >= 1, 'SIGKILL gave the CLI no chance to clean up');
    const next = await runMeasured({ task: 'echo_task', answer: 'ok', runtime: 'docker', traceDir: scratch('next-') });
    assert.equal(next.code, 0, next.stderr.slice(-2000));
    assert.deepEqual(await containersOwnedBy(child.pid!), [], 'the next run swept what the killed CLI left');
  });
});
