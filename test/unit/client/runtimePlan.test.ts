import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ALWAYS_LOCAL, USE_LOCAL, dockerMissing, planRuntime } from '../../../client/src/runtimePlan';

describe('runtime plan and its messages', () => {
  test('settings map onto the engine runtime strings', () => {
    assert.deepEqual(planRuntime({ runtime: 'auto', runtimeUrl: '' }), { ok: true, runtime: 'auto' });
    assert.deepEqual(planRuntime({ runtime: 'docker', runtimeUrl: 'tcp://127.0.0.1:1' }), {
      ok: true,
      runtime: 'docker',
    });
    assert.deepEqual(planRuntime({ runtime: 'url', runtimeUrl: 'tcp://127.0.0.1:8765' }), {
      ok: true,
      runtime: 'tcp://127.0.0.1:8765',
    });
  });

  test('url without an address says which setting to fill and with what', () => {
    const p = planRuntime({ runtime: 'url', runtimeUrl: '' });
    assert.equal(p.ok, false);
    if (!p.ok) {
      assert.equal(p.setting, 'hudStudio.runtimeUrl');
      assert.match(p.message, /tcp:\/\/HOST:PORT/);
    }
  });

  test('Docker missing: the reason, the fix, and the local runtime offer', () => {
    const m = dockerMissing('connect ENOENT /var/run/docker.sock', '');
    assert.equal(m.message, 'Docker is not available: connect ENOENT /var/run/docker.sock');
    assert.match(m.detail, /start its daemon/);
    assert.match(m.detail, /DOCKER_HOST or \/var\/run\/docker\.sock/);
    assert.ok(m.detail.includes(USE_LOCAL) && m.detail.includes(ALWAYS_LOCAL));
    assert.match(
      dockerMissing('timeout', 'tcp://127.0.0.1:2375').detail,
      /hudStudio\.dockerHost \(tcp:\/\/127\.0\.0\.1:2375\)/,
    );
  });
});
