/**
 * The snapshot the Harbor sweep keeps (harbor/sessions.ts) names each process
 * by pid and start time, read with shell builtins from /proc/PID/stat. Run
 * here against the host's /bin/sh and /proc (the snapshot only reads; the
 * sweep itself, which signals every process, runs only in containers: see
 * test/integration/security/harborPids.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processSnapshot } from '../../../client/src/engine/harbor/sessions';
import type { ManagedContainer } from '../../../client/src/engine/docker/types';

/** A container whose execs are host processes: enough for a snapshot. */
const host = {
  exec: (argv: string[]) => {
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8' });
    return Promise.resolve({ exitCode: r.status ?? 1, stdout: r.stdout, stderr: r.stderr });
  },
} as unknown as ManagedContainer;

test('a process is known by its pid and start time, whatever its name holds', async () => {
  // A name with spaces and parentheses, as /proc/PID/stat shows it between its own parentheses.
  const dir = mkdtempSync(join(tmpdir(), 'hs-sessions-'));
  const program = join(dir, 'a) b (c');
  copyFileSync('/bin/sleep', program);
  spawnSync('chmod', ['755', program]);
  const child = spawn(program, ['30'], { stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 200));
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    assert.match(stat, /\(a\) b \(c\)/);
    const startTime = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[19];
    const snapshot = await processSnapshot(host);
    assert.ok(snapshot.includes(`${child.pid}:${startTime}`), `${child.pid}:${startTime} not in the snapshot`);
    assert.ok(
      snapshot.includes(`${process.pid}:${readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[19]}`),
    );
    assert.ok(snapshot.every((id) => /^\d+:\d+$/.test(id)));
  } finally {
    child.kill('SIGKILL');
  }
});
