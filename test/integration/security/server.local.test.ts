/**
 * The environment's server on the local runtime runs in a bubblewrap sandbox
 * (docs/security.md): what it sees, how it is stopped, and the attacks of an
 * agent that drives a server-side tool (the environment runs the agent's
 * commands, as a bash tool served by env.py does). Each attack answers
 * wrongly unless it gets past the sandbox. Missing bubblewrap is a failure.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { LocalProvider } from '../../../client/src/engine/providers/local';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import { runRollout } from '../../../client/src/engine/rollout';
import { readTrace } from '../../../client/src/engine/trace/store';
import { exitOf, REPO_ROOT } from '../cli/cliHarness';
import { tempDir } from '../docker/support';

const PROBE = join(__dirname, 'fixtures', 'server_probe', 'env.py');
const TOOL = join(__dirname, 'fixtures', 'server_tool', 'env.py');
const SELF_GRADED = join(__dirname, 'fixtures', 'self_graded', 'env.py');
const GOLDEN = readFileSync(join(dirname(TOOL), 'verifier-only', 'expected.txt'), 'utf8').trim();

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

/** A unique `sleep` duration, to find the process it names. */
function sleepMarker(): string {
  return `${300 + Math.floor(Math.random() * 600)}.${process.pid % 1000}`;
}

test('the server sees its own sandbox only; SIGTERM reaches its teardown; a detached child dies with the namespace', async () => {
  // A host process of the same user holding a variable: an unsandboxed server could read it in /proc.
  const holder = spawn('sleep', ['120'], { env: { ...process.env, HUD_STUDIO_HOST_ONLY: '1' }, stdio: 'ignore' });
  const hostFolder = mkdtempSync(join(tmpdir(), 'hs-host-private-'));
  writeFileSync(join(hostFolder, 'key'), 'private');
  const marker = sleepMarker();
  const lines: string[] = [];
  const log = (_stream: string, text: string): void => void lines.push(text);
  const provider = new LocalProvider({ killGraceMs: 5_000 });
  const substrate = await provider.acquire(
    { envFile: PROBE, envDir: dirname(PROBE), runtimeConfig: null, sdk: 'bundled' },
    { rolloutId: `probe-${process.pid}`, phase: 'actor', log },
  );
  try {
    const paths = [join(REPO_ROOT, 'package.json'), PROBE, hostFolder, join(hostFolder, 'key'), substrate.workdir];
    await substrate.serve({ envName: 'probe', env: { PROBE_PATHS: paths.join(':'), PROBE_SLEEP: marker }, log });
    const probe = (name: string): string | undefined =>
      lines.find((l) => l.startsWith(`PROBE ${name}`))?.slice(`PROBE ${name}`.length + 1);
    // Its python, bwrap's init, and nothing of the host's hundreds.
    assert.ok(Number(probe('processes')) <= 3, `the server saw ${probe('processes')} processes`);
    assert.equal(probe('host variable seen'), 'False');
    assert.equal(probe('usr writable'), 'False');
    assert.equal(probe(`path ${join(REPO_ROOT, 'package.json')} visible`), 'False', 'the repository is out of view');
    assert.equal(probe(`path ${PROBE} visible`), 'False', 'the original folder is out of view');
    assert.equal(probe(`path ${join(hostFolder, 'key')} visible`), 'False', "another folder in the host's /tmp");
    assert.equal(probe(`path ${substrate.workdir} visible`), 'True', 'its own copy is there');
    // The server's Popen can return while the child's exec is still under way (its command line not yet
    // /proc's), so the child is waited for rather than looked up once.
    const end = Date.now() + 10_000;
    while (processesRunning(`sleep ${marker}`).length === 0 && Date.now() < end) await delay(20);
    assert.equal(processesRunning(`sleep ${marker}`).length, 1, 'the detached child runs until release');
  } finally {
    await substrate.release();
    holder.kill();
    rmSync(hostFolder, { recursive: true, force: true });
  }
  assert.ok(lines.includes('PROBE teardown ran'), `the teardown ran on SIGTERM:\n${lines.join('\n')}`);
  assert.deepEqual(processesRunning(`sleep ${marker}`), [], 'the setsid child went with the PID namespace');
});

/** `run` of the server-tool task as a real CLI process, with `env` added to its variables. */
async function toolRun(
  answer: string,
  env: Record<string, string> = {},
): Promise<{ reward: number; trace: string; output: string }> {
  const dir = tempDir('server-tool');
  const argv = ['run', `${TOOL}::task`, '--answer', answer, '--runtime', 'local', '--trace-dir', dir, '--json'];
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'client', 'src', 'cli.ts'), ...argv], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const r = await exitOf(child);
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  const json = JSON.parse(r.stdout) as { reward: number; status: string; trace: string };
  assert.equal(json.status, 'completed');
  const output = (readTrace(json.trace).actorResult as { answer?: unknown } | undefined)?.answer;
  return { reward: json.reward, trace: readFileSync(json.trace, 'utf8'), output: String(output) };
}

test("the server's tool hunts the golden word and the CLI's variables: it finds neither", async () => {
  const hostValue = `host-only-${process.pid.toString(16)}f00d`;
  const hunt = [
    `cat ${dirname(TOOL)}/verifier-only/expected.txt /tmp/hud-studio-*/work/verifier-only/expected.txt 2>/dev/null`,
    `grep -rhos 'golden-[0-9a-f]*' /tmp ${dirname(TOOL)} 2>/dev/null`,
    "grep -ahos 'host-only-[0-9a-f]*' /proc/[0-9]*/environ 2>/dev/null",
    "env | grep -o 'host-only-[0-9a-f]*'",
    'echo hunted',
  ].join('; ');
  const { reward, trace, output } = await toolRun(hunt, { HUD_STUDIO_HOST_ONLY: hostValue });
  assert.equal(reward, 0, 'the golden word stayed out of reach');
  assert.equal(output, 'hunted', 'the hunt ran and found nothing');
  assert.equal(trace.includes(GOLDEN), false, 'the golden word is not in the trace');
  assert.equal(trace.includes(hostValue), false, "the CLI's variable is not in the trace");
  assert.doesNotMatch(trace, /not a security boundary/);
});

test("a setsid child of the server's tool neither outlives the actor phase nor rewrites the verifier's env.py", async () => {
  const marker = sleepMarker();
  const rewrite =
    'for i in $(seq 1 600); do for f in /tmp/hud-studio-*-verifier-*/work/env.py; do [ -f "$f" ] && ' +
    'sed -i "s/1.0 if expected in answer else 0.0/1.0/" "$f"; done; sleep 0.05; done';
  const r = await toolRun(
    `setsid sh -c '${rewrite}' </dev/null >/dev/null 2>&1 & setsid sleep ${marker} </dev/null >/dev/null 2>&1 & echo wrong`,
  );
  assert.equal(r.output, 'wrong');
  assert.equal(r.reward, 0, 'the verifier graded with its own, untouched env.py');
  assert.deepEqual(processesRunning(`sleep ${marker}`), [], 'nothing the server started is left');
});

test('without bubblewrap, the run says the local runtime is not a security boundary', async () => {
  const outcome = await runRollout({
    ref: `${SELF_GRADED}::task`,
    cwd: REPO_ROOT,
    provider: new LocalProvider({ sandbox: false }),
    agent: new FixedAgent('wrong'),
    traceDir: null,
    timeouts: { rolloutMs: 120_000 },
  });
  assert.equal(outcome.status, 'completed', outcome.error?.message);
  assert.equal(outcome.reward, 0);
  assert.ok(
    outcome.trace.warnings.some((w) => /not a security boundary/.test(w)),
    JSON.stringify(outcome.trace.warnings),
  );
});
