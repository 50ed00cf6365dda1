/**
 * What the Local provider promises (docs/hud-protocol.md): private folder, scrubbed environment, process group
 * killed.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { CommandAgent } from '../../../client/src/engine/agents/command';
import { FixedAgent } from '../../../client/src/engine/agents/fixed';
import { LocalProvider, LocalSubstrate } from '../../../client/src/engine/providers/local';
import { OWNER_FILE, sweepOrphans } from '../../../client/src/engine/providers/localOwner';
import { groupAlive } from '../../../client/src/engine/providers/processGroup';
import { FIXTURES, rolloutOn, scratchDir } from './rules';
import { localUnderTest } from './localUnderTest';

describe('local provider isolation', () => {
  test("the actor works in a private copy: the user's folder never gets its files", async () => {
    const original = join(dirname(FIXTURES.twoEnv), 'actor-was-here.txt');
    const { outcome, substrates } = await rolloutOn(
      localUnderTest,
      `${FIXTURES.twoEnv}::task`,
      new FixedAgent('secret'),
    );
    assert.equal(outcome.reward, 1);
    assert.equal(existsSync(original), false);
    const [actor, verifier] = substrates as LocalSubstrate[];
    assert.notEqual(actor!.root, verifier!.root, 'actor and verifier had different folders');
    assert.ok(outcome.trace.phases.every((p) => p.substrate?.isolation === 'process'));
  });

  test("the parent's variables do not leak; HOME and the working folder are private", async () => {
    process.env['HUD_STUDIO_PARENT_SECRET'] = 'leaked';
    try {
      const put = { ...localUnderTest, create: () => new LocalProvider() };
      const { outcome, substrates } = await rolloutOn(
        put,
        `${FIXTURES.rules}::credentials_split`,
        new FixedAgent('x'),
        { credentials: { workspace: { WORKSPACE_KEY: 'w' } } },
      );
      const actorInfo = (
        outcome.result!.info['received'] as { info: { env: Record<string, unknown>; home: string; cwd: string } }
      ).info;
      assert.equal(actorInfo.env['HUD_STUDIO_PARENT_SECRET'], null);
      assert.equal(actorInfo.env['WORKSPACE_KEY'], 'w');
      const root = (substrates[0] as LocalSubstrate).root;
      assert.equal(actorInfo.home, join(root, 'home'));
      assert.equal(actorInfo.cwd, join(root, 'work'));
    } finally {
      delete process.env['HUD_STUDIO_PARENT_SECRET'];
    }
  });

  test('whatever the agent leaves running is killed with its process group at release', async () => {
    const agent = new CommandAgent('sleep 300 >/dev/null 2>&1 & echo secret');
    let groups: number[] = [];
    const { outcome } = await rolloutOn(localUnderTest, `${FIXTURES.twoEnv}::task`, agent, {
      onEvent: (e, _abort, live) => {
        if (e.type === 'answer') groups = (live[0] as LocalSubstrate).processGroups;
      },
    });
    assert.equal(outcome.reward, 1);
    assert.equal(
      groups.length,
      4,
      "discovery, the server, the agent command and the check of the agent's links each led a group",
    );
    for (const g of groups) assert.equal(groupAlive(g), false);
  });

  test('exec, copyIn and copyOut work inside the private folder; release removes it', async () => {
    const provider = new LocalProvider();
    const dir = dirname(FIXTURES.sameEnv);
    const s = (await provider.acquire(
      { envFile: FIXTURES.sameEnv, envDir: dir, runtimeConfig: null },
      { rolloutId: 'testtest', phase: 'actor', log: () => undefined },
    )) as LocalSubstrate;
    const hostFile = join(scratchDir('hs-copy-'), 'note.txt');
    writeFileSync(hostFile, 'hello');
    await s.copyIn(hostFile, 'inbox');
    const cat = await s.exec(['cat', 'inbox/note.txt']);
    assert.deepEqual([cat.exitCode, cat.stdout], [0, 'hello']);
    const py = await s.execPython(['-c', 'import hud, os; print(os.environ["HOME"])']);
    assert.equal(py.stdout.trim(), join(s.root, 'home'));
    const out = scratchDir('hs-out-');
    await s.copyOut('inbox', out);
    assert.equal(readFileSync(join(out, 'inbox', 'note.txt'), 'utf8'), 'hello');
    const timed = await s.exec(['sleep', '30'], { timeoutMs: 200 });
    assert.deepEqual([timed.exitCode, timed.timedOut], [null, true]);
    await s.release();
    assert.equal(existsSync(s.root), false);
    await assert.rejects(s.exec(['true']), /already released/);
  });

  test('a server that cannot start reports its own error output', async () => {
    const dir = scratchDir('hs-broken-');
    writeFileSync(
      join(dir, 'env.py'),
      'from hud import Environment\nenv = Environment("e")\nraise ValueError("broken at import")\n',
    );
    const s = await new LocalProvider().acquire(
      { envFile: join(dir, 'env.py'), envDir: dir, runtimeConfig: null },
      { rolloutId: 'brokenxx', phase: 'actor', log: () => undefined },
    );
    await assert.rejects(
      s.serve({ envName: 'e', log: () => undefined }),
      /server exited \(code 1\) before it was ready:[\s\S]*broken at import/,
    );
    assert.equal(existsSync((s as LocalSubstrate).root), false, 'a failed serve releases the substrate');
  });

  test("substrates whose owner died are swept (their groups stopped); a live owner's are left alone", async () => {
    const tempRoot = scratchDir('sweep-');
    const provider = new LocalProvider({ tempRoot });
    const acquire = (id: string) =>
      provider.acquire(
        { envFile: FIXTURES.sameEnv, envDir: dirname(FIXTURES.sameEnv), runtimeConfig: null },
        { rolloutId: id, phase: 'actor', log: () => undefined },
      ) as Promise<LocalSubstrate>;
    const orphan = await acquire('orphan00');
    await orphan.serve({ envName: 'workspace', log: () => undefined });
    const pgid = orphan.serverPgid!;
    const owner = JSON.parse(readFileSync(join(orphan.root, OWNER_FILE), 'utf8')) as { pid: number; groups: number[] };
    assert.deepEqual(owner.groups, [pgid]);
    const deadPid = spawnSync('true').pid;
    writeFileSync(join(orphan.root, OWNER_FILE), JSON.stringify({ ...owner, pid: deadPid }));
    const mine = await acquire('mine0000');
    assert.deepEqual(await sweepOrphans(tempRoot), [orphan.root]);
    assert.equal(groupAlive(pgid), false);
    assert.equal(existsSync(orphan.root), false);
    assert.equal(existsSync(mine.root), true);
    await mine.release();
  });

  test('a process the dead owner started but never recorded (killed before it could) is stopped too', async () => {
    // The owner died between starting its agent and recording the agent's group: the folder lists no group.
    const tempRoot = scratchDir('straggler-');
    const root = join(tempRoot, 'hud-studio-strayxx0-actor-Ab12Cd');
    mkdirSync(join(root, 'workspace'), { recursive: true });
    writeFileSync(join(root, OWNER_FILE), JSON.stringify({ host: hostname(), pid: spawnSync('true').pid, groups: [] }));
    // One names the folder on its command line (as bubblewrap does), one only works in it; each leads a
    // group of its own, as the agent's commands do, so no group of the owner's reaches them.
    const named = spawn('python3', ['-c', 'import time; time.sleep(60)', join(root, 'workspace')], {
      detached: true,
      stdio: 'ignore',
    });
    const inside = spawn('python3', ['-c', 'import time; time.sleep(60)'], {
      cwd: join(root, 'workspace'),
      detached: true,
      stdio: 'ignore',
    });
    const ended = [named, inside].map(
      (c) => new Promise<NodeJS.Signals | null>((resolve) => c.once('exit', (_code, signal) => resolve(signal))),
    );
    try {
      assert.deepEqual(await sweepOrphans(tempRoot), [root]);
      assert.equal(existsSync(root), false);
      // Killed by the sweep, not ended by their own sleep a minute later.
      const signals = await Promise.race([Promise.all(ended), delay(5_000).then(() => 'still running')]);
      assert.deepEqual(signals, ['SIGKILL', 'SIGKILL']);
    } finally {
      named.kill('SIGKILL');
      inside.kill('SIGKILL');
    }
  });
});
