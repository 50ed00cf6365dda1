/** The Docker provider as a ProviderUnderTest: released means no container of the rollout exists. */
import assert from 'node:assert/strict';
import { DockerProvider, DockerSubstrate } from '../../../client/src/engine/providers/docker';
import type { Substrate } from '../../../client/src/engine/providers/provider';
import type { ProviderUnderTest } from '../engine-local/rules';
import { assertNoContainersOfRollout, containerExists } from './support';

export const dockerUnderTest: ProviderUnderTest = {
  name: 'docker',
  create: () => new DockerProvider({ stopGraceMs: 2_000 }),
  startupMs: 120_000,
  async assertReleased(substrates: Substrate[], rolloutId: string) {
    for (const s of substrates) {
      assert.ok(s instanceof DockerSubstrate);
      assert.equal(s.info.isolation, 'container');
      assert.equal(await containerExists(s.info.id), false, `container ${s.info.id.slice(0, 12)} was removed`);
    }
    // Also what was started but never handed out (a cancel during acquire).
    await assertNoContainersOfRollout(rolloutId);
  },
};
