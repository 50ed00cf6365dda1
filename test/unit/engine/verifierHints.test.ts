/**
 * The memory of what a task's last discovery said about its verifier
 * (engine/verifierHints.ts): keyed by provider kind and task, a fit only when
 * environment and runtime_config are the same, and bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  forgetVerifierHints,
  hintFits,
  rememberVerifierHint,
  verifierHint,
  verifierHintKey,
} from '../../../client/src/engine/verifierHints';
import type { TaskFileTarget } from '../../../client/src/engine/taskLoader';

const target = (file: string, selector?: string): TaskFileTarget => ({
  displayPath: file,
  file,
  envFile: file,
  envDir: '/w',
  selector,
});

test('a hint belongs to one task of one file on one kind of provider', () => {
  forgetVerifierHints();
  const key = verifierHintKey('docker', target('/w/env.py', 'task'));
  rememberVerifierHint(key, { env: 'judge', runtimeConfig: null });
  assert.deepEqual(verifierHint(key), { env: 'judge', runtimeConfig: null });
  assert.equal(verifierHint(verifierHintKey('local', target('/w/env.py', 'task'))), undefined);
  assert.equal(verifierHint(verifierHintKey('docker', target('/w/env.py', 'other'))), undefined);
  assert.equal(verifierHint(verifierHintKey('docker', target('/w/env.py'))), undefined);
  // A discovery that found no verifier of its own forgets the hint.
  rememberVerifierHint(key, undefined);
  assert.equal(verifierHint(key), undefined);
});

test('a hint fits only the same environment with the same runtime_config', () => {
  const hint = { env: 'judge', runtimeConfig: { image: 'judge:1' } };
  assert.equal(hintFits(hint, { env: 'judge', runtimeConfig: { image: 'judge:1' } }), true);
  assert.equal(hintFits(hint, { env: 'judge', runtimeConfig: { image: 'judge:2' } }), false);
  assert.equal(hintFits(hint, { env: 'judge', runtimeConfig: null }), false);
  assert.equal(hintFits(hint, { env: 'other', runtimeConfig: { image: 'judge:1' } }), false);
  assert.equal(hintFits(hint, undefined), false);
});

test('the oldest hint goes first past 512', () => {
  forgetVerifierHints();
  const keyOf = (i: number) => verifierHintKey('docker', target(`/w/e${i}.py`));
  for (let i = 0; i < 513; i++) rememberVerifierHint(keyOf(i), { env: `v${i}`, runtimeConfig: null });
  assert.equal(verifierHint(keyOf(0)), undefined);
  assert.equal(verifierHint(keyOf(1))?.env, 'v1');
  assert.equal(verifierHint(keyOf(512))?.env, 'v512');
  forgetVerifierHints();
});
