import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { HudStudioError, UsageError } from '../../../client/src/engine/errors';
import { BUNDLED_SDK, decideSdk, parseSdkChoice, parseSdkProbe } from '../../../client/src/engine/providers/servingSdk';
import { servedBy } from '../../../client/src/runsModel';

describe('which SDK serves', () => {
  test('--sdk / hudStudio.sdk values', () => {
    assert.equal(parseSdkChoice(undefined), 'auto');
    assert.equal(parseSdkChoice('image'), 'image');
    assert.throws(
      () => parseSdkChoice('real'),
      (e: unknown) => e instanceof UsageError && /auto, bundled or image/.test(e.describe()),
    );
  });

  test("the probe's answer: the SDK found, or none", () => {
    const found = parseSdkProbe('noise\n{"version": "0.6.16.dev2", "path": "/x/hud/__init__.py"}\n');
    assert.deepEqual(found, { name: 'hud-python', version: '0.6.16.dev2', source: 'image' });
    assert.equal(parseSdkProbe('null\n'), null);
    assert.equal(parseSdkProbe('Traceback ...'), null);
  });

  test("auto prefers the image's SDK, bundled never probes, image without one is an error naming the fix", () => {
    const found = { name: 'hud-python', version: '0.6.1', source: 'image' as const };
    assert.equal(decideSdk('auto', found, 'image x'), found);
    assert.equal(decideSdk('auto', null, 'image x'), BUNDLED_SDK);
    assert.equal(decideSdk('bundled', found, 'image x'), BUNDLED_SDK);
    assert.throws(
      () => decideSdk('image', null, 'image x'),
      (e: unknown) =>
        e instanceof HudStudioError &&
        /image x has no HUD SDK v6/.test(e.message) &&
        /--sdk bundled/.test(e.describe()),
    );
  });

  test('the Runs view names the SDK that served a phase', () => {
    assert.equal(servedBy({ name: 'hud-python', version: '0.6.16', source: 'image' }), 'SDK hud-python 0.6.16');
    assert.equal(servedBy(BUNDLED_SDK), 'bundled SDK');
  });
});
