import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS, batchAgentOf, harborAgentOf, parseSettings } from '../../../client/src/settings';

describe('settings', () => {
  test('defaults when nothing is set', () => {
    const { settings, problems } = parseSettings({});
    assert.deepEqual(problems, []);
    assert.equal(settings.runtime, 'auto');
    assert.equal(settings.agent, 'ask');
    assert.equal(settings.passThreshold, 1);
    assert.equal(settings.maxConcurrency, 2);
    assert.equal(settings.traceFolder, '.hud-studio/traces');
    assert.deepEqual(settings.imageOverrides, {});
    assert.deepEqual(settings.envFiles, {});
    assert.equal(settings.timeouts.startupSeconds, 120);
    assert.equal(settings.timeouts.phaseSeconds, 1800);
    assert.deepEqual(settings, DEFAULT_SETTINGS);
  });

  test('valid values are kept', () => {
    const { settings, problems } = parseSettings({
      runtime: 'url',
      runtimeUrl: 'tcp://127.0.0.1:8765',
      passThreshold: 0.5,
      maxConcurrency: 4,
      imageOverrides: { workspace: 'my/image:1' },
      envFiles: { judge: '.env.judge' },
      timeouts: { startupSeconds: 30, phaseSeconds: 60, rolloutSeconds: 90 },
      agent: 'fixed',
      agentAnswer: 'secret',
    });
    assert.deepEqual(problems, []);
    assert.equal(settings.runtime, 'url');
    assert.equal(settings.runtimeUrl, 'tcp://127.0.0.1:8765');
    assert.equal(settings.passThreshold, 0.5);
    assert.equal(settings.maxConcurrency, 4);
    assert.deepEqual(settings.imageOverrides, { workspace: 'my/image:1' });
    assert.deepEqual(settings.envFiles, { judge: '.env.judge' });
    assert.equal(settings.timeouts.rolloutSeconds, 90);
    assert.equal(settings.agentAnswer, 'secret');
  });

  test('one bad value falls back alone and is reported by its full name', () => {
    const { settings, problems } = parseSettings({ maxConcurrency: 0, runtime: 'docker', runtimeUrl: 'http://x' });
    assert.equal(settings.maxConcurrency, 2);
    assert.equal(settings.runtime, 'docker');
    assert.equal(settings.runtimeUrl, '');
    assert.deepEqual(
      problems.map((p) => p.setting),
      ['hudStudio.runtimeUrl', 'hudStudio.maxConcurrency'],
    );
    assert.match(problems[0]!.message, /tcp:\/\/HOST:PORT/);
    assert.match(problems[1]!.message, /using the default 2/);
  });

  test('nested problems name the nested key', () => {
    const { settings, problems } = parseSettings({ timeouts: { startupSeconds: -1 }, imageOverrides: { a: 3 } });
    assert.equal(settings.timeouts.startupSeconds, 120);
    assert.equal(settings.timeouts.phaseSeconds, 1800);
    assert.deepEqual(settings.imageOverrides, {});
    assert.deepEqual(
      problems.map((p) => p.setting),
      ['hudStudio.imageOverrides.a', 'hudStudio.timeouts.startupSeconds'],
    );
  });

  test('an unknown agent kind is rejected, not run', () => {
    const { settings, problems } = parseSettings({ agent: 'gpt' });
    assert.equal(settings.agent, 'ask');
    assert.equal(problems.length, 1);
  });

  test('batch runs never use the interactive agent', () => {
    assert.equal(batchAgentOf(parseSettings({ agent: 'ask', batchAgent: 'nop' }).settings), 'nop');
    assert.equal(batchAgentOf(parseSettings({ agent: 'ask' }).settings), 'fixed');
    assert.equal(batchAgentOf(parseSettings({ agent: 'command', batchAgent: 'nop' }).settings), 'command');
  });

  test('Harbor trials use the oracle unless nop or command was chosen', () => {
    const d = parseSettings({}).settings;
    assert.equal(d.harborAgent, 'oracle');
    assert.equal(harborAgentOf(d, 'ask'), 'oracle');
    assert.equal(harborAgentOf(d, 'fixed'), 'oracle');
    assert.equal(harborAgentOf(d, 'nop'), 'nop');
    assert.equal(harborAgentOf(parseSettings({ harborAgent: 'nop' }).settings, 'ask'), 'nop');
  });
});
