/**
 * Links the agent leaves for a grader to follow (docs/security.md, "Links
 * the agent leaves"). The grader reads `answer.txt` with the server's
 * rights and compares it with a golden file the agent cannot read; each
 * attack makes `answer.txt` lead to that file another way. Before the cut,
 * each scored 1 on its runtime. Now each scores 0, the warning names the
 * links, and the agent's harmless links and its folder's mode are kept.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { bubblewrap } from '../../../client/src/engine/providers/localSandbox';
import { readTrace } from '../../../client/src/engine/trace/store';
import { dockerReady } from '../docker/support';
import { completedRollout } from './rollout';

before(async () => {
  await dockerReady();
  assert.ok(bubblewrap(), 'the local runtime needs bubblewrap for these tests (apt-get install -y bubblewrap)');
});

const VAULT = `${join(__dirname, 'fixtures', 'link_grader', 'env.py')}::task`;

/** The golden file as the server sees it: in the container's environment folder, or the local copy by the workspace. */
const GOLDEN = { docker: '/opt/hud-studio/env/golden/secret.txt', local: '../work/golden/secret.txt' } as const;

/** Links an honest agent might leave: they must survive. */
const HARMLESS = 'echo note > note && ln -s note alias && ln -s /usr/bin/env tool';

const ATTACKS: { name: string; plant: (golden: string) => string }[] = [
  { name: 'a link to the golden file', plant: (g) => `ln -s ${g} answer.txt` },
  // The server's working folder is its environment's: /proc/self is the reader, not the agent.
  { name: 'a link through /proc/self/cwd', plant: () => 'ln -s /proc/self/cwd/golden/secret.txt answer.txt' },
  {
    name: 'a chain of links through a folder made read-only',
    plant: (g) => `mkdir locked && ln -s ${g} locked/answer && ln -s locked/answer answer.txt && chmod 555 locked`,
  },
];

for (const runtime of ['docker', 'local'] as const) {
  for (const attack of ATTACKS) {
    test(`${runtime}: ${attack.name} does not reach the grader's file`, async () => {
      const command = `${HARMLESS} && ${attack.plant(GOLDEN[runtime])} && ls -l >&2 && echo done`;
      const json = await completedRollout(VAULT, command, { runtime, traces: 'links' });
      const trace = readTrace(json.trace);
      assert.equal(json.reward, 0, `the grader followed the agent's link: ${JSON.stringify(trace.result)}`);
      const info = trace.result?.info as { links: string[]; locked_mode: string | null };
      assert.deepEqual(info.links, ['alias', 'tool'], 'only the harmless links are left');
      if (attack.name.includes('read-only')) assert.equal(info.locked_mode, '0o555', "the folder's mode is given back");
      const warning = trace.warnings.find((w) => w.startsWith('removed '));
      assert.ok(warning?.includes('answer.txt" -> '), `the cut is named: ${trace.warnings.join('\n')}`);
      assert.doesNotMatch(warning ?? '', /(alias|tool)" -> /, 'harmless links are not named');
    });
  }
}

const SCRATCH: { runtime: 'docker'; task: string; name: string; plant: string; said: RegExp }[] = [
  {
    runtime: 'docker',
    task: 'in_tmp',
    name: "a link in /tmp's folder to the answer",
    plant: 'mkdir -p /tmp/grading && ln -s /workspace/answer.txt /tmp/grading/expected.txt',
    said: /removed 1 symlink .*"\/tmp\/grading\/expected\.txt" -> "\/workspace\/answer\.txt"/,
  },
  {
    runtime: 'docker',
    task: 'in_tmp',
    name: 'a hard link in /tmp to the answer',
    plant: 'mkdir -p /tmp/grading && ln answer.txt /tmp/grading/expected.txt',
    said: /gave 1 file the agent had hard-linked/,
  },
  {
    runtime: 'docker',
    task: 'in_open_folder',
    name: "a link to the answer in the server's folder that everyone writes (not sticky)",
    plant: 'ln -s /workspace/answer.txt /var/scratch/expected.txt',
    said: /removed 1 symlink .*"\/var\/scratch\/expected\.txt" -> "\/workspace\/answer\.txt"/,
  },
  {
    runtime: 'docker',
    task: 'in_drop_folder',
    name: "a link to the answer in the server's folder that everyone writes but nobody else lists (0733)",
    plant: 'ln -s /workspace/answer.txt /var/drop/expected.txt',
    said: /removed 1 symlink .*"\/var\/drop\/expected\.txt" -> "\/workspace\/answer\.txt"/,
  },
];

for (const attack of SCRATCH) {
  test(`${attack.runtime}: ${attack.name} does not take the grader's writes`, async () => {
    const command = `echo guess > answer.txt && ${attack.plant} && echo done`;
    const ref = `${VAULT.replace(/::task$/, '')}::${attack.task}`;
    const json = await completedRollout(ref, command, { runtime: attack.runtime, traces: 'links' });
    assert.equal(json.reward, 0, 'the grader wrote the golden word into the answer');
    assert.ok(
      readTrace(json.trace).warnings.some((w) => attack.said.test(w)),
      readTrace(json.trace).warnings.join('\n'),
    );
  });
}
