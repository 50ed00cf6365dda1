import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RolloutEvent } from '../../../common/events';
import { formatEvent } from '../../../client/src/rolloutLog';

const grammar = JSON.parse(
  readFileSync(new URL('../../../syntaxes/hud-rollout-log.tmLanguage.json', import.meta.url), 'utf8'),
);
const lineRe = new RegExp(grammar.repository.line.match);
const at = '2026-11-29T10:00:01.234Z';

const events: RolloutEvent[] = [
  { type: 'rollout.queued', rolloutId: 'abcdef0123', at, taskRef: 'env.py::task' },
  {
    type: 'phase.started',
    rolloutId: 'abcdef0123',
    at,
    phase: 'verifier',
    substrate: { id: 'c0ffee1234567890', provider: 'docker', isolation: 'container' },
    reused: true,
  },
  {
    type: 'log',
    rolloutId: 'abcdef0123',
    at,
    phase: 'actor',
    stream: 'stderr',
    text: 'line one\n\x1b[31mred\x1b[0m two\n',
  },
  {
    type: 'grade',
    rolloutId: 'abcdef0123',
    at,
    phase: 'actor',
    result: { reward: 0.25, subscores: [{ name: 'x', value: 0.25, weight: 1 }], info: {}, isError: false },
    raw: {},
    authoritative: false,
  },
  {
    type: 'rollout.ended',
    rolloutId: 'abcdef0123',
    at,
    status: 'error',
    reward: null,
    result: null,
    tracePath: undefined,
    error: { phase: 'verifier', message: 'boom' },
  },
  { type: 'prompt', rolloutId: 'abcdef0123', at, prompt: { prompt: 'a\nb' } },
];

describe('rollout log lines', () => {
  test('every event becomes lines the grammar recognises', () => {
    for (const e of events) for (const l of formatEvent(e)) assert.match(l, lineRe, l);
  });

  test('columns, multi-line logs and stripped ANSI', () => {
    const lines = formatEvent(events[2]!);
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^\d\d:\d\d:\d\d\.234 #abcdef01 actor {4}stderr {3}line one$/);
    assert.match(lines[1]!, /stderr {3}red two$/);
    assert.match(
      formatEvent(events[1]!)[0]!,
      /verifier phase {4}started on docker c0ffee123456 isolation=container \(reused actor substrate\)$/,
    );
    assert.match(formatEvent(events[3]!)[0]!, /grade {4}reward 0\.25 · x 0\.25 \(provisional\)$/);
    assert.match(formatEvent(events[4]!)[0]!, /ended {4}errored in verifier: boom$/);
  });

  test('a model step shows its tool calls and tokens', () => {
    const step: RolloutEvent = {
      type: 'agent.step',
      rolloutId: 'abcdef0123',
      at,
      index: 2,
      text: 'Let me look',
      toolCalls: [{ name: 'bash', input: { command: 'ls' }, output: 'a' }],
      usage: { input: 120, output: 15, cached: 20 },
    };
    const [l] = formatEvent(step);
    assert.match(l!, lineRe);
    assert.match(l!, /agent {4}step 2: Let me look \(bash\) · tokens in 120 out 15 cached 20$/);
  });
});
