/**
 * A Harbor agent that forks until the kernel refuses (docs/security.md,
 * "Exhaustion"): without a pids limit on its container it would take every
 * pid of the host, and the verifier, the other rollouts and the user's own
 * shell could start nothing. The bomb stops by itself at 5000 processes, so
 * that a regression costs this machine 5000 sleepers for a minute and not
 * its pid table. The forks must be refused at the container's limit, the
 * agent's sleepers swept, and the verifier must still run and write its
 * reward.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';
import { CONTAINER_PIDS_LIMIT } from '../../../client/src/engine/docker/pidsLimit';
import { LABELS } from '../../../client/src/engine/docker/types';
import { readTrace } from '../../../client/src/engine/trace/store';
import { dockerReady } from '../docker/support';
import { HARBOR_FIXTURES, fixtureVariant, runTrial } from '../harbor/support';

before(dockerReady);

const BOMB_CAP = 5000;

/**
 * Forks sleepers until a fork fails or BOMB_CAP of them run, counting them in
 * /tmp/forks with builtins only, in a shell of its own (dash exits on a
 * failed fork); the agent's shell then does `then` and prints the count.
 */
function bombThen(then: string): string {
  const bomb = `i=0; while [ $i -lt ${BOMB_CAP} ]; do sleep 120 & i=$((i+1)); echo $i > /tmp/forks; done`;
  return [`sh -c '${bomb}' 2>/dev/null`, then, 'read n < /tmp/forks; echo "forks $n"'].join('\n');
}

/** The sleepers the bomb started, from the agent's output in the trace. */
function forksOf(tracePath: string): number {
  const answer = readTrace(tracePath).answer;
  const m = /^forks (\d+)$/m.exec(typeof answer === 'string' ? answer : '');
  assert.ok(m, 'the agent printed its count of forks');
  return Number(m[1]);
}

/**
 * `docker inspect`s every container this test process owns while `run`
 * runs, and returns each one's pids limit by its Compose service (or its
 * phase, for a single container).
 */
async function pidsLimitsDuring(run: () => Promise<void>): Promise<Map<string, number>> {
  const docker = dockerClient();
  const seen = new Map<string, number>();
  const inspected = new Set<string>();
  let running = true;
  const watch = (async () => {
    while (running) {
      const list = await docker.listContainers({
        filters: { label: [`${LABELS.ownerPid}=${process.pid}`, `${LABELS.managed}=true`] },
      });
      for (const c of list) {
        if (inspected.has(c.Id)) continue;
        const info = await docker
          .getContainer(c.Id)
          .inspect()
          .catch(() => undefined);
        if (!info) continue;
        inspected.add(c.Id);
        const labels = info.Config.Labels ?? {};
        const name = labels['com.docker.compose.service'] ?? labels[LABELS.phase] ?? c.Id;
        seen.set(name, info.HostConfig.PidsLimit ?? 0);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  try {
    await run();
  } finally {
    running = false;
    await watch;
  }
  return seen;
}

/** The bomb filled the container up to its limit: the kernel refused the fork, the cap did not stop it. */
/** The compose-sidecar fixture's file, with the pids limits the task itself asks for. */
function sidecarCompose(mainLimit: number, apiLimit?: number): string {
  return [
    'version: "2.4"',
    'services:',
    '  main:',
    '    build: .',
    '    command: ["sleep", "infinity"]',
    `    pids_limit: ${mainLimit}`,
    '    depends_on:',
    '      - api',
    '  api:',
    '    build: ./api',
    ...(apiLimit === undefined ? [] : [`    pids_limit: ${apiLimit}`]),
    '',
  ].join('\n');
}

function assertRefusedAtLimit(forks: number, limit: number): void {
  assert.ok(forks < BOMB_CAP, `the bomb started ${forks} processes: nothing refused a fork`);
  // The container's init, its keep-alive, the agent's shells and the engine's execs hold the rest.
  assert.ok(forks > limit - 40 && forks <= limit, `the bomb started ${forks} processes under a limit of ${limit}`);
}

test('a fork bomb in a single-container Harbor task stops at the pids limit, and the verifier still writes its reward', async () => {
  // Room for the bomb's sleepers (about 200 kB of the kernel's each), so that the pids limit stops it, not memory.
  const toml = readFileSync(join(HARBOR_FIXTURES, 'shared-basic', 'task.toml'), 'utf8');
  const roomy = toml.replace(/^memory_mb = \d+$/m, 'memory_mb = 2048');
  assert.notEqual(roomy, toml);
  const dir = fixtureVariant('shared-basic', { 'task.toml': roomy });
  let outcome: Awaited<ReturnType<typeof runTrial>>['outcome'] | undefined;
  const limits = await pidsLimitsDuring(async () => {
    ({ outcome } = await runTrial(dir, {
      agent: 'command',
      command: bombThen('echo "hello, harbor" > /app/greeting.txt'),
    }));
  });
  assert.ok(outcome);
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1, 'the shared verifier ran after the bomb and wrote its reward');
  assertRefusedAtLimit(forksOf(outcome.tracePath!), CONTAINER_PIDS_LIMIT);
  assert.deepEqual([...limits.entries()], [['actor', CONTAINER_PIDS_LIMIT]]);
});

test("a fork bomb in a Compose task's main stops at the pids limit: a higher limit in the file is capped, a lower one kept", async () => {
  const dir = fixtureVariant('compose-sidecar', {
    'environment/docker-compose.yaml': sidecarCompose(CONTAINER_PIDS_LIMIT * 100, 64),
  });
  const fetchToken = `python3 -c 'import urllib.request; open("/app/token.txt", "wb").write(urllib.request.urlopen("http://api:8000/token", timeout=10).read())'`;
  let outcome: Awaited<ReturnType<typeof runTrial>>['outcome'] | undefined;
  const limits = await pidsLimitsDuring(async () => {
    ({ outcome } = await runTrial(dir, { agent: 'command', command: bombThen(fetchToken) }));
  });
  assert.ok(outcome);
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1, 'the verifier ran after the bomb and wrote its reward');
  // The token fetch came after the bomb: the fork it needed found room once the bomb's shell was gone.
  assertRefusedAtLimit(forksOf(outcome.tracePath!), CONTAINER_PIDS_LIMIT);
  assert.deepEqual(Object.fromEntries(limits), { main: CONTAINER_PIDS_LIMIT, api: 64 });
  assert.match(
    readTrace(outcome.tracePath!).warnings.join('\n'),
    new RegExp(`service "main" asks for a pids limit of ${CONTAINER_PIDS_LIMIT * 100}`),
  );
});

test('a fork bomb that forks without end, left running by the agent, is swept before the verifier runs', async () => {
  // The task's own limit, lower than HUD Studio's, is kept: it is also what bounds this bomb should that regress.
  const dir = fixtureVariant('compose-sidecar', {
    'environment/docker-compose.yaml': sidecarCompose(512),
  });
  const fetchToken = `python3 -c 'import urllib.request; open("/app/token.txt", "wb").write(urllib.request.urlopen("http://api:8000/token", timeout=10).read())'`;
  const bomb = `(setsid sh -c 'b() { b & b & wait; }; b' </dev/null >/dev/null 2>&1 &)`;
  // How often the kernel refused a fork for the limit (cgroup v1, then v2), once the bomb has had time to fill it.
  // Builtins only after the sleep: the container is full by then.
  const refused = [
    'sleep 3',
    'for f in /sys/fs/cgroup/pids/pids.events /sys/fs/cgroup/pids.events; do',
    '  [ -r $f ] && while read -r k v; do [ "$k" = max ] && echo "max $v"; done < $f',
    'done',
    'exit 0',
  ].join('\n');
  const { outcome } = await runTrial(dir, { agent: 'command', command: [fetchToken, bomb, refused].join('\n') });
  assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
  assert.equal(outcome.reward, 1, 'the verifier ran after the bomb and wrote its reward');
  const answer = readTrace(outcome.tracePath!).answer;
  const refusals = Number(/^max (\d+)$/m.exec(typeof answer === 'string' ? answer : '')?.[1]);
  assert.ok(refusals > 0, `the kernel refused ${refusals} forks: the bomb never filled the container`);
});
