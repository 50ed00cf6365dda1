/**
 * What of the actor's workspace reaches a verifier in an environment of its
 * own (docs/security.md, docs/engine.md): only the actor's result frame. The
 * agent writes the status file the verifier trusts, plus a symlink and a
 * folder, in its workspace; on both runtimes the verifier's workspace holds
 * none of them and a wrong answer scores 0.
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

const CARRY = `${join(__dirname, 'fixtures', 'workspace_carry', 'env.py')}::task`;

const PLANT = [
  'echo PASS > result.txt',
  'ln -s /etc/passwd planted-link',
  'mkdir -p planted-dir && echo PASS > planted-dir/result.txt',
  'ls',
].join('\n');

for (const runtime of ['docker', 'local'] as const) {
  test(`${runtime}: nothing the agent left in its workspace reaches a verifier on a substrate of its own`, async () => {
    const json = await completedRollout(CARRY, PLANT, { runtime, traces: 'carry' });
    const trace = readTrace(json.trace);
    assert.match(String(trace.answer), /planted-dir\nplanted-link\nresult\.txt/, 'the agent planted its files');
    assert.equal(json.reward, 0, 'the verifier read the status file the agent wrote');
    const seen = trace.result?.info?.['workspace'] as string[];
    assert.deepEqual(
      seen.filter((n) => /result|planted/.test(n)),
      [],
      `the verifier's workspace: ${seen.join(', ')}`,
    );
  });
}
