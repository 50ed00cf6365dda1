/** The Local provider as a ProviderUnderTest: release means folder removed and every process group gone. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { LocalProvider, LocalSubstrate } from '../../../client/src/engine/providers/local';
import { groupAlive } from '../../../client/src/engine/providers/processGroup';
import type { Substrate } from '../../../client/src/engine/providers/provider';
import type { ProviderUnderTest } from './rules';

export const localUnderTest: ProviderUnderTest = {
  name: 'local',
  create: () =>
    new LocalProvider({ parentEnv: { ...process.env, HUD_STUDIO_PARENT_SECRET: 'must-not-leak' }, killGraceMs: 2_000 }),
  async assertReleased(substrates: Substrate[]) {
    for (const s of substrates) {
      assert.ok(s instanceof LocalSubstrate);
      assert.equal(existsSync(s.root), false, `${s.root} was removed`);
      for (const pgid of s.processGroups) assert.equal(groupAlive(pgid), false, `process group ${pgid} is gone`);
    }
  },
};
