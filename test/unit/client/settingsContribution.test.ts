/**
 * The settings schema (client/src/settings.ts) is the one declaration of the
 * extension's settings: package.json is generated from it and the reader
 * walks its keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_KEYS, configurationContribution, parseSettings, readRawSettings } from '../../../client/src/settings';

const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Record<string, unknown>> } };
};

test('package.json declares exactly the settings of the schema (run `npm run gen:config` to fix)', () => {
  assert.deepEqual(pkg.contributes.configuration, configurationContribution());
});

test('every declared setting has a description and a scope', () => {
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(
    Object.keys(props),
    SETTING_KEYS.map((k) => `hudStudio.${k}`),
  );
  for (const [key, p] of Object.entries(props)) {
    assert.equal(typeof p.markdownDescription, 'string', key);
    assert.ok(['application', 'machine-overridable', 'resource'].includes(String(p.scope)), key);
    assert.ok('default' in p, key);
  }
});

test('the reader asks VS Code for every setting, consents included', () => {
  const asked: string[] = [];
  const raw = readRawSettings((key) => {
    asked.push(key);
    return key === 'allowServiceAccess' || key === 'allowSharedSecrets' ? true : undefined;
  });
  assert.deepEqual(asked, [...SETTING_KEYS]);
  const { settings, problems } = parseSettings(raw);
  assert.deepEqual(problems, []);
  assert.equal(settings.allowServiceAccess, true);
  assert.equal(settings.allowSharedSecrets, true);
});

test('the generated pattern and the parser agree on the runtime URL', () => {
  const pattern = new RegExp(String(pkg.contributes.configuration.properties['hudStudio.runtimeUrl']?.pattern));
  for (const url of ['', 'tcp://127.0.0.1:8765', 'tcp://host:1', 'http://x:1', 'tcp://x', 'tcp://a b:1']) {
    const parsed = parseSettings({ runtimeUrl: url }).problems.length === 0;
    assert.equal(pattern.test(url), parsed, url);
  }
});
