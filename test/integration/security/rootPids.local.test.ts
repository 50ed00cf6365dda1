/**
 * The local runtime run by root (docs/security.md, "Exhaustion"): the kernel
 * exempts root from the agent's RLIMIT_NPROC, so each rollout's agent runs in
 * a pids cgroup of its own (providers/agentCgroup.ts). A fork bomb stops at
 * its limit, the run still grades the wrong answer 0, and no cgroup is left.
 * Where no cgroup can be made, the run goes on and its log says so.
 *
 * The CLI runs in a pids cgroup of the test's own (5,000 processes) so that a
 * regression cannot take every pid of the machine running the tests; this
 * machine's cgroups are v1 (hybrid), where the agent's cgroup is made under
 * the engine's own, and so under the test's. Needs root and bubblewrap.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentCgroup } from '../../../client/src/engine/providers/agentCgroup';
import { AGENT_PROCESS_LIMIT } from '../../../client/src/engine/providers/agentLimits';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import { REPO_ROOT, exitOf } from '../cli/cliHarness';
import { tempDir } from '../docker/support';
import { forkBombAgent, processesWith } from './exhaustionAgents';

const root = process.getuid?.() === 0;
const skip = root ? false : 'the case these tests cover is an engine run by root';

const WATCH = `${join(__dirname, 'fixtures', 'survivor_watch', 'env.py')}::task`;
const PIDS = '/sys/fs/cgroup/pids';
/** The test's safety net: far above the agent's limit, far below the machine's. */
const SAFETY_LIMIT = 5_000;
const SAFETY = join(PIDS, `hud-studio-test-rootpids-${process.pid}`);

before(() => {
  if (!root) return;
  assert.ok(bubblewrap(), 'the local runtime needs bubblewrap for these tests (apt-get install -y bubblewrap)');
  assert.ok(existsSync(join(PIDS, 'cgroup.procs')), `these tests need the cgroup v1 pids hierarchy at ${PIDS}`);
});

after(() => removeCgroupTree(SAFETY));

/**
 * Sub-cgroups left anywhere under `dir`. The engine removes its cgroups
 * while this runs (the watch below reads them every 100 ms), so one that
 * goes between the listing and the look inside is simply not there.
 */
function cgroupsUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries.filter((e) => e.isDirectory()).flatMap((e) => [join(dir, e.name), ...cgroupsUnder(join(dir, e.name))]);
}

/**
 * Removes `dir` and the cgroups under it, deepest first, killing what is
 * still in them (a failed test may leave its CLI running) and retrying while
 * the kernel still counts the dying, so one failure does not fail the tests
 * after it.
 */
function removeCgroupTree(dir: string): void {
  if (!existsSync(dir)) return;
  for (const cg of [...cgroupsUnder(dir).reverse(), dir]) {
    for (let attempt = 0; ; attempt++) {
      try {
        for (const pid of readFileSync(join(cg, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        rmdirSync(cg);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        if (code !== 'EBUSY' || attempt >= 100) throw err;
        spawnSync('sleep', ['0.05']);
      }
    }
  }
}

interface Run {
  json: { status: string; reward: number | null; trace: string; error: unknown };
  stderr: string;
  /** Most processes and threads the CLI and everything it started had at once. */
  peak: number;
  /** Forks the test's cgroup refused. */
  refusals: number;
  /** Cgroups left under the test's. */
  left: string[];
  /** The actor phase's engine log. */
  engineLog: string[];
  /** Command lines of the processes seen in the agent's cgroups while the CLI ran. */
  members: Set<string>;
}

/** Command lines of the processes in the agents' cgroups under the test's (made by the engine under its own). */
function agentMembers(): string[] {
  const found: string[] = [];
  for (const dir of cgroupsUnder(SAFETY).filter((d) => /\/hud-studio\/[^/]+$/.test(d))) {
    let procs = '';
    try {
      procs = readFileSync(join(dir, 'cgroup.procs'), 'utf8');
    } catch {
      continue; // removed meanwhile
    }
    for (const pid of procs.split('\n').filter(Boolean)) {
      try {
        found.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim());
      } catch {
        // gone meanwhile
      }
    }
  }
  return found;
}

/** `hud-studio run` as root in the test's cgroup; `prelude` (a command prefix) starts it, once in that cgroup. */
async function runAsRoot(agentCommand: string, opts: { prelude?: string; timeoutS?: number } = {}): Promise<Run> {
  removeCgroupTree(SAFETY);
  mkdirSync(SAFETY);
  try {
    writeFileSync(join(SAFETY, 'pids.max'), String(SAFETY_LIMIT));
    const traces = tempDir('rootpids');
    const cliArgv = ['--import', 'tsx', join(REPO_ROOT, 'client', 'src', 'cli.ts')];
    cliArgv.push('run', WATCH, '--command', agentCommand, '--runtime', 'local');
    cliArgv.push('--trace-dir', traces, '--timeout', String(opts.timeoutS ?? 45), '--json');
    const launch = `echo $$ > ${SAFETY}/cgroup.procs && exec ${opts.prelude ?? ''} "$@"`;
    const child = spawn('/bin/sh', ['-c', launch, 'sh', process.execPath, ...cliArgv], {
      cwd: REPO_ROOT,
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 55_000);
    const members = new Set<string>();
    const watch = setInterval(() => {
      try {
        for (const m of agentMembers()) members.add(m);
      } catch {
        // a cgroup went while it was read: the next look sees the rest
      }
    }, 100);
    const done = await exitOf(child);
    clearTimeout(timer);
    clearInterval(watch);
    assert.ok(done.stdout.trim(), `the CLI printed no result (exit ${done.code}): ${done.stderr}`);
    const json = JSON.parse(done.stdout) as Run['json'];
    const trace = JSON.parse(readFileSync(json.trace, 'utf8')) as {
      phases: { name: string; logs: { stream: string; text: string }[] }[];
    };
    const actor = trace.phases.find((p) => p.name === 'actor');
    return {
      json,
      stderr: done.stderr,
      peak: Number(readFileSync(join(SAFETY, 'pids.peak'), 'utf8')),
      refusals: Number(/^max (\d+)$/m.exec(readFileSync(join(SAFETY, 'pids.events'), 'utf8'))?.[1] ?? 0),
      left: cgroupsUnder(SAFETY),
      engineLog: (actor?.logs ?? []).filter((l) => l.stream === 'engine').map((l) => l.text),
      members,
    };
  } finally {
    // What a regression left is reported above (`left`); removed here, deepest first, so that it does not pile up.
    removeCgroupTree(SAFETY);
  }
}

test(
  "a root engine's agent: a fork bomb stops at the agent's limit, the run grades 0, no cgroup is left",
  { skip },
  async () => {
    const marker = `hud-studio-root-fork-bomb-${process.pid}`;
    const r = await runAsRoot(forkBombAgent('.', marker));
    assert.equal(
      r.json.status,
      'completed',
      `the agent turned its run into an error: ${JSON.stringify(r.json)}${r.stderr}`,
    );
    assert.equal(r.json.reward, 0);
    assert.deepEqual(processesWith(marker), [], 'a process of the bomb outlived the run');
    // The engine, its server and their threads need a few dozen; without the agent's cgroup the bomb took 5,000.
    assert.ok(
      r.peak < AGENT_PROCESS_LIMIT + 200,
      `the run had ${r.peak} processes at once: the agent's processes were not held to ${AGENT_PROCESS_LIMIT}`,
    );
    assert.equal(r.refusals, 0, "the bomb ran into the test's cgroup: the agent's limit did not hold");
    assert.deepEqual(r.left, [], 'a cgroup of the run was left behind');
    assert.ok(!r.engineLog.some((l) => l.includes('pids cgroup')), r.engineLog.join('\n'));
  },
);

test(
  'a root engine where no pids cgroup can be made: the run goes on, and its log says so once',
  { skip },
  async () => {
    // A private, empty /sys/fs/cgroup (a tmpfs in a mount namespace of the CLI's own) stands for a machine without one.
    const prelude = 'unshare -m --propagation private sh -c \'mount -t tmpfs none /sys/fs/cgroup && exec "$@"\' sh';
    const r = await runAsRoot('echo wrong', { prelude });
    assert.equal(r.json.status, 'completed', JSON.stringify(r.json) + r.stderr);
    assert.equal(r.json.reward, 0);
    const warnings = r.engineLog.filter((l) => l.includes('no pids cgroup could be made'));
    assert.equal(warnings.length, 1, r.engineLog.join('\n'));
    assert.match(warnings[0] ?? '', /runs as root/);
    assert.deepEqual(r.left, []);
  },
);

test(
  "a root engine's rollout that times out while its agent runs: the agent's processes and cgroup go, the server was never in it",
  { skip },
  async () => {
    const marker = `hud-studio-root-sleeper-${process.pid}`;
    // One of them leaves the agent's session; both outlive the phase's time.
    const r = await runAsRoot(`setsid sh -c 'sleep 40; :' ${marker} & sh -c 'sleep 40; :' ${marker}`, { timeoutS: 4 });
    assert.notEqual(r.json.status, 'completed', JSON.stringify(r.json));
    const seen = [...r.members];
    assert.ok(
      seen.some((m) => m.includes(marker)),
      `the agent's command was not seen in its cgroup: ${seen.join(' | ')}`,
    );
    assert.deepEqual(
      seen.filter((m) => m.includes('hud.environment.server') || m.includes(process.execPath)),
      [],
      "an engine process ran in the agent's cgroup",
    );
    assert.deepEqual(processesWith(marker), [], "a process of the agent's outlived the run");
    assert.deepEqual(r.left, [], 'a cgroup of the run was left behind');
  },
);

test(
  'an engine that died without cleaning up: the next one removes its empty cgroups, not those of live engines',
  { skip },
  () => {
    const parent = join(SAFETY, 'hud-studio');
    removeCgroupTree(SAFETY);
    mkdirSync(SAFETY);
    try {
      const gone = spawnSync('true').pid;
      assert.ok(gone);
      mkdirSync(join(parent, `${gone}.orphan`), { recursive: true });
      // PID 1 always runs.
      mkdirSync(join(parent, '1.live'));
      const cgroup = AgentCgroup.create({ version: 1, parent }, 'next');
      assert.equal(readFileSync(join(cgroup.dir, 'pids.max'), 'utf8').trim(), String(AGENT_PROCESS_LIMIT));
      assert.deepEqual(
        readdirSync(parent)
          .filter((n) => statSync(join(parent, n)).isDirectory())
          .sort(),
        ['1.live', `${process.pid}.next`],
      );
    } finally {
      removeCgroupTree(SAFETY);
    }
  },
);
