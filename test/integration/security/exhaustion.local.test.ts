/**
 * Agents that exhaust a shared resource on the local runtime, in bubblewrap
 * (docs/security.md, "Exhaustion"): the run must complete with the wrong
 * answer's 0, not error, and nothing of the agent's may be left on the host.
 * Missing bubblewrap is a failure.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import { REPO_ROOT, exitOf, spawnCli } from '../cli/cliHarness';
import { tempDir } from '../docker/support';
import { forkBombAgent, processesWith } from './exhaustionAgents';

/** A user of the host's that is not root (see cliAsUser). */
const TEST_UID = 1000;

const WATCH = `${join(__dirname, 'fixtures', 'survivor_watch', 'env.py')}::task`;

before(() => {
  assert.ok(bubblewrap(), 'the local runtime needs bubblewrap for these tests (apt-get install -y bubblewrap)');
});

/**
 * The CLI as a user of its own, in a pids cgroup of its own. The kernel
 * exempts root's processes from the process limit, so on a root host the
 * limit cannot hold (docs/security.md); the cgroup keeps a failure of the
 * limit from taking every pid of the machine that runs the tests.
 */
async function cliAsUser(
  argv: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; cgroupRefusals: number }> {
  const home = tempDir('exhaustion-home');
  const cgroup = `/sys/fs/cgroup/pids/hud-studio-test-${process.pid}`;
  if (process.getuid?.() !== 0)
    return { ...(await exitOf(spawnCli(argv, REPO_ROOT, { HOME: home }))), cgroupRefusals: 0 };
  chownSync(home, TEST_UID, TEST_UID);
  mkdirSync(cgroup);
  try {
    writeFileSync(join(cgroup, 'pids.max'), '4096');
    const launch = `echo $$ > ${cgroup}/cgroup.procs && exec setpriv --reuid ${TEST_UID} --regid ${TEST_UID} --clear-groups "$@"`;
    const cliArgv = ['--import', 'tsx', join(REPO_ROOT, 'client', 'src', 'cli.ts'), ...argv];
    const child = spawn('/bin/sh', ['-c', launch, 'sh', process.execPath, ...cliArgv], {
      cwd: REPO_ROOT,
      env: { ...process.env, HOME: home, XDG_CACHE_HOME: join(home, '.cache'), FORCE_COLOR: '0' },
    });
    const done = await exitOf(child);
    // How many forks the cgroup refused: none, when the agent's own limit stopped the bomb first.
    const refusals = /^max (\d+)$/m.exec(readFileSync(join(cgroup, 'pids.events'), 'utf8'))?.[1];
    return { ...done, cgroupRefusals: Number(refusals ?? 0) };
  } finally {
    rmdirSync(cgroup);
  }
}

test('a fork bomb in the sandbox stops at its process limit, and the run still grades the wrong answer 0', async () => {
  const marker = `hud-studio-fork-bomb-${process.pid}`;
  const traces = tempDir('exhaustion-local');
  if (process.getuid?.() === 0) chownSync(traces, TEST_UID, TEST_UID);
  // The agent's command starts in its workspace.
  const r = await cliAsUser([
    'run',
    WATCH,
    '--command',
    forkBombAgent('.', marker),
    '--runtime',
    'local',
    '--trace-dir',
    traces,
    '--timeout',
    '180',
    '--json',
  ]);
  const json = JSON.parse(r.stdout) as { status: string; reward: number | null };
  assert.equal(json.status, 'completed', `the agent turned its run into an error: ${r.stdout}${r.stderr}`);
  assert.equal(json.reward, 0);
  assert.deepEqual(processesWith(marker), [], 'a process of the bomb outlived the run');
  assert.equal(r.cgroupRefusals, 0, "the bomb ran into the test's cgroup: the agent's limit did not hold");
});
