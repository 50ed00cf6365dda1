import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliErrorMessage, cliFixHint } from '../../../client/src/cli/fixHint';
import { createAgent } from '../../../client/src/engine/agents/create';
import type { Fix } from '../../../common/fix';
import { editorErrorMessage, editorFixHint } from '../../../client/src/fixHint';
import { inlineText, testMessage } from '../../../client/src/outcome';

const EVERY_FIX: Fix[] = [
  { kind: 'runtime', use: 'docker' },
  { kind: 'runtime', use: 'local' },
  { kind: 'runtime', use: 'docker-or-local' },
  { kind: 'allow-service-access' },
  { kind: 'trace-dir' },
  { kind: 'agent-answer' },
  { kind: 'agent-command' },
  { kind: 'image' },
];
const FLAG = /(^|\s)--[a-z]/;

test('the editor words every fix as a setting, never as a command-line flag', () => {
  for (const fix of EVERY_FIX) {
    const hint = editorFixHint(fix);
    assert.doesNotMatch(hint, FLAG, `${fix.kind}: ${hint}`);
    assert.match(hint, /hudStudio\.\w+/, `${fix.kind} names no setting: ${hint}`);
  }
});

test('the command line words every fix as the flag that makes it', () => {
  for (const fix of EVERY_FIX) assert.match(cliFixHint(fix), FLAG, fix.kind);
});

test('an engine error carries the fix, not the wording: each front end adds its own', () => {
  let err: unknown;
  try {
    createAgent({ agent: 'fixed' });
  } catch (e) {
    err = e;
  }
  assert.ok(err, 'a fixed agent without an answer must be refused');
  assert.equal(editorErrorMessage(err), 'the fixed agent has no answer (set hudStudio.agentAnswer)');
  assert.equal(cliErrorMessage(err), 'the fixed agent has no answer (give the answer with --answer TEXT)');
});

test('outcomes shown in the editor (inline text, Testing message) use the editor wording', () => {
  const o = {
    status: 'error' as const,
    reward: null,
    result: null,
    error: {
      phase: 'setup' as const,
      message: 'write on the borrowed server failed',
      fix: { kind: 'runtime', use: 'docker-or-local' } as Fix,
    },
  };
  for (const text of [inlineText(o), testMessage(o, 1)]) {
    assert.match(text, /hudStudio\.runtime/);
    assert.doesNotMatch(text, FLAG);
  }
});
