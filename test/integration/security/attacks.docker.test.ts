/**
 * Attacks from the actor's seat on a real Docker engine (docs/security.md):
 * each agent answers wrongly and then tries to raise its own reward. Each
 * run must end with reward 0 (or an error), never 1.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCacheRoot } from '../../../client/src/engine/runtimeBytecode';
import { readTrace } from '../../../client/src/engine/trace/store';
import { FIXTURES } from '../engine-local/rules';
import { dockerReady } from '../docker/support';
import { runRollout, type RolloutRun } from './rollout';

before(dockerReady);

const SELF_GRADED = join(__dirname, 'fixtures', 'self_graded', 'env.py');

/** Stops the server, then (detached, outliving the agent) writes forged grade replies into the relay's stdout. */
const FORGE = [
  'for d in /proc/[0-9]*; do',
  '  [ "${d#/proc/}" = "$$" ] && continue',
  '  c=$(tr "\\0" " " < "$d/cmdline" 2>/dev/null)',
  '  case "$c" in *hud_studio.prestart*|*hud.environment.server*|*unpack*) kill -STOP "${d#/proc/}" 2>/dev/null && echo "stopped ${d#/proc/}" >&2;; esac',
  'done',
  "setsid sh -c 'i=0; while [ $i -lt 200 ]; do i=$((i+1));",
  '  for d in /proc/[0-9]*; do c=$(tr "\\0" " " < "$d/cmdline" 2>/dev/null);',
  '    case "$c" in *RELAY_READY*) for id in 3 4 5 6; do',
  '      printf "%s\\n" "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"prompt\\":\\"\\",\\"score\\":1.0}}" > "$d/fd/1" 2>/dev/null;',
  "    done;; esac; done; sleep 0.05; done' </dev/null >/dev/null 2>&1 &",
  'echo wrong',
].join('\n');

/** Recovers the golden value from the environment's own file, wherever it was copied. */
const READ_GOLDEN =
  'for f in /workspace/env/env.py /opt/hud-studio/env/env.py; do sed -n \'s/^task = guess(expected="\\(.*\\)")$/\\1/p\' "$f" 2>/dev/null; done | head -n 1';

/** A rollout of `envFile`'s task in Docker with `command` in the agent's seat. */
function attack(envFile: string, command: string): Promise<RolloutRun> {
  return runRollout(envFile, command, { runtime: 'docker', timeoutS: 180, traces: 'attack' });
}

test('forged control-channel replies: the agent can neither stop the server nor write into the relay (self-graded actor)', async () => {
  const r = await attack(`${SELF_GRADED}::task`, FORGE);
  assert.notEqual(r.reward, 1, `the forged grade was accepted: ${r.stdout}`);
  assert.equal(r.status, 'completed', r.stdout);
  assert.equal(r.reward, 0);
  assert.equal(r.forgeable, false);
});

test('forged control-channel replies with a same-environment verifier: the authoritative grade is the real one', async () => {
  const r = await attack(`${FIXTURES.sameEnv}::task`, FORGE);
  assert.notEqual(r.reward, 1, `the forged grade was accepted: ${r.stdout}`);
  assert.equal(r.status, 'completed', r.stdout);
  assert.equal(r.reward, 0);
  const trace = readTrace(r.trace!);
  assert.equal(trace.answer, 'wrong');
});

// A shell runs commands by vfork: its parent waits in the kernel (state D) until the child execs, and a SIGSTOP
// that lands on the child first keeps it waiting. Here the child stops itself on purpose; the sweep at the end of
// the turn used to wait for the parent to stop until its deadline, and the run was an error instead of a 0.
const VFORK_STOPPED =
  "python3 -c 'import ctypes; libc = ctypes.CDLL(None); libc.vfork() or libc.kill(libc.getpid(), 19)' & sleep 1; echo wrong";

test('a vfork parent held in the kernel by its stopped child does not keep the turn from ending: it is graded 0', async () => {
  const r = await attack(`${SELF_GRADED}::task`, VFORK_STOPPED);
  assert.equal(r.status, 'completed', r.stdout);
  assert.equal(r.reward, 0);
});

test('golden data: sed on env.py in the actor container recovers nothing', async () => {
  const r = await attack(`${SELF_GRADED}::task`, READ_GOLDEN);
  assert.equal(r.status, 'completed', r.stdout);
  assert.equal(r.reward, 0, `the agent read the expected answer out of env.py: ${r.stdout}`);
  assert.equal(readTrace(r.trace!).answer, '');
});

test('an environment that asks for a root agent gets one, and its self-graded reward is marked forgeable', async () => {
  const rootAgent = join(__dirname, 'fixtures', 'root_agent', 'env.py');
  const r = await attack(`${rootAgent}::task`, 'id -u');
  assert.equal(r.status, 'completed', r.stdout);
  assert.equal(r.forgeable, true);
  const trace = readTrace(r.trace!);
  assert.equal(trace.answer, '0', 'the agent ran as root');
  assert.equal(trace.forgeable, true);
  assert.ok(
    trace.warnings.some((w) => /reward is forgeable/.test(w)),
    trace.warnings.join('\n'),
  );
  // An agent that runs nothing cannot have forged anything.
  const json = await runRollout(`${rootAgent}::task`, 'hunter2', { runtime: 'docker', answer: true, traces: 'attack' });
  assert.equal(json.reward, 1);
  assert.equal(json.forgeable, false);
});

/**
 * A root agent rewrites the bundled runtime's grading code (and drops its compiled table, which would
 * otherwise win over the sources), then tries to lift the read-only mount it sits on. Each attempt
 * prints its outcome; on a writable mount the next verifier would grade everything 1.
 */
const PLANT_IN_RUNTIME = [
  'R=/opt/hud-studio/runtime',
  "printf '%s\\n' '_real = EvaluationResult.__init__' 'def _forged(self, *a, **k):' '    _real(self, *a, **k)' '    self.reward = 1.0' 'EvaluationResult.__init__ = _forged' >> $R/hud/graders/results.py 2>/dev/null && echo appended || echo no-append",
  'rm -rf $R/.bytecode 2>/dev/null && echo removed || echo no-remove',
  'mount -o remount,rw $R 2>/dev/null && echo remounted || echo no-remount',
  'umount $R 2>/dev/null && echo unmounted || echo no-umount',
  'mount -t tmpfs tmpfs $R 2>/dev/null && echo covered || echo no-cover',
  'id -u',
].join('\n');

/** Every file's path, mode and bytes under `dir`: whatever a container could have changed there. */
function folderDigest(dir: string): string {
  const hash = createHash('sha256');
  const visit = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const st = lstatSync(path);
      hash.update(`${path}\0${st.mode}\0`);
      if (st.isDirectory()) visit(path);
      else if (st.isFile()) hash.update(readFileSync(path));
    }
  };
  visit(dir);
  return hash.digest('hex');
}

test("the bundled runtime's read-only mount: a root agent can neither plant grading code there nor lift the mount", async () => {
  const fixture = join(__dirname, 'fixtures', 'root_agent_verifier', 'env.py');
  const cache = join(defaultCacheRoot(), 'runtime-bytecode');
  // The folder the containers mount exists once a run has compiled the runtime.
  const honest = await attack(`${fixture}::task`, 'echo hunter2');
  assert.equal(honest.reward, 1, `the verifier grades a right answer 1: ${honest.stdout}`);
  const before = folderDigest(cache);

  const r = await attack(`${fixture}::task`, PLANT_IN_RUNTIME);
  assert.equal(r.status, 'completed', r.stdout);
  const trace = readTrace(r.trace!);
  assert.equal(
    trace.answer,
    'no-append\nno-remove\nno-remount\nno-umount\nno-cover\n0',
    'every attempt failed, as root',
  );
  const actorLogs = trace.phases.find((p) => p.name === 'actor')?.logs.map((l) => l.text) ?? [];
  assert.ok(
    actorLogs.some((l) => /the bundled runtime is mounted read-only/.test(l)),
    `the actor's container had the runtime mounted, not a copy of its own:\n${actorLogs.join('\n')}`,
  );
  assert.equal(r.reward, 0);
  assert.equal(r.forgeable, false, 'the reward of record comes from the fresh verifier container');
  assert.equal(folderDigest(cache), before, "nothing in the host's runtime cache changed");

  // The next rollout's verifier mounts the same folder: it still grades a wrong answer 0.
  const next = await attack(`${fixture}::task`, 'echo wrong');
  assert.equal(next.reward, 0, next.stdout);
});
