import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { discoverTasks } from '../../../client/src/engine/discover';
import { HudStudioError } from '../../../client/src/engine/errors';
import { LocalProvider } from '../../../client/src/engine/providers/local';
import { parseRuntimeConfig } from '../../../client/src/engine/runtimeConfig';

const SCRATCH = mkdtempSync(join(tmpdir(), 'hs-unit-runtime-config-'));
process.on('exit', () => rmSync(SCRATCH, { recursive: true, force: true }));

const at = { file: 'env.py', line: 7 };

describe('runtime_config schema', () => {
  test('null and absent mean no runtime_config', () => {
    assert.equal(parseRuntimeConfig(null, 'e/t', at), null);
    assert.equal(parseRuntimeConfig(undefined, 'e/t', at), null);
  });

  test('known keys are typed; unknown keys are kept for the providers', () => {
    const rc = parseRuntimeConfig(
      {
        image: 'my/env:1',
        compose: { file: 'compose.yaml', service_access: false, services: {} },
        resources: { cpu: 0.5, memory_mb: 300, gpu: null },
        limits: { run_timeout_s: 30 },
        network_mode: 'no-network',
      },
      'e/t',
      at,
    );
    assert.equal(rc?.image, 'my/env:1');
    assert.equal(rc?.resources?.cpu, 0.5);
    assert.equal(rc?.limits?.run_timeout_s, 30);
    assert.equal(rc?.['network_mode'], 'no-network');
    assert.deepEqual(parseRuntimeConfig({ compose: true }, 'e/t', at), { compose: true });
  });

  test('a bad value is a task-load error naming the key, the task and its line', () => {
    const cases: [unknown, string][] = [
      [{ limits: { run_timeout_s: '30' } }, 'runtime_config.limits.run_timeout_s'],
      [{ limits: { startup_timeout_s: -1 } }, 'runtime_config.limits.startup_timeout_s'],
      [{ resources: { memory_mb: 1.5 } }, 'runtime_config.resources.memory_mb'],
      [{ image: '' }, 'runtime_config.image'],
      [{ compose: 5 }, 'runtime_config.compose'],
      [['image'], 'runtime_config'],
    ];
    for (const [raw, key] of cases) {
      assert.throws(
        () => parseRuntimeConfig(raw, 'catalog/greet', at),
        (e: unknown) =>
          e instanceof HudStudioError &&
          e.code === 'task-load' &&
          e.location?.key === key &&
          e.location.line === 7 &&
          e.message.startsWith(`${key} of task catalog/greet is invalid`) &&
          !!e.hint,
        JSON.stringify(raw),
      );
    }
  });

  test('discovery through the bundled runtime reports a bad runtime_config at the task', async () => {
    const dir = mkdtempSync(join(SCRATCH, 'env-'));
    writeFileSync(
      join(dir, 'env.py'),
      [
        'from hud import Environment',
        'env = Environment("rc")',
        '',
        '@env.template(id="t")',
        'async def t():',
        '    answer = yield "say hi"',
        '    yield 1.0',
        '',
        'good = t()',
        'good.runtime_config = {"limits": {"run_timeout_s": 5}, "resources": {"cpu": 1}}',
        'bad = t()',
        'bad.runtime_config = {"limits": {"run_timeout_s": "soon"}}',
        '',
      ].join('\n'),
    );
    const substrate = await new LocalProvider({ tempRoot: SCRATCH }).acquire(
      { envFile: join(dir, 'env.py'), envDir: dir, runtimeConfig: null },
      { rolloutId: 'runtime-config-test', phase: 'actor', log: () => undefined },
    );
    try {
      await assert.rejects(
        discoverTasks(substrate, { displayPath: 'env.py', hostDir: dir, file: substrate.envPath }),
        (e: unknown) =>
          e instanceof HudStudioError &&
          e.location?.key === 'runtime_config.limits.run_timeout_s' &&
          e.location.file === 'env.py' &&
          e.location.line === 5 &&
          /of task rc\/t is invalid/.test(e.message),
      );
    } finally {
      await substrate.release();
    }
  });
});
