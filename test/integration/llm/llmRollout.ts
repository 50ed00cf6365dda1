/**
 * The llm agent's rollout tests, run on any provider (local and Docker call
 * defineLlmRolloutTests). Models are scripted servers on 127.0.0.1.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LLM_SETTINGS, LlmAgent, type LlmSettings } from '../../../client/src/engine/agents/llm/llmAgent';
import { resolveModel } from '../../../client/src/engine/agents/llm/modelRef';
import { readTrace } from '../../../client/src/engine/trace/store';
import { removeScratch, rolloutOn, type ProviderUnderTest } from '../engine-local/rules';
import { startScriptedModel, type ModelWire, type ScriptEntry, type ScriptOptions } from '../../support/scriptedModels';

export const FIX_FILE = join(__dirname, 'fixtures', 'fix_file', 'env.py');
const KEY = 'sk-test-DO-NOT-LEAK-6f1c2b';

export function agentFor(wire: ModelWire, baseUrl: string, settings: Partial<LlmSettings> = {}): LlmAgent {
  const name = wire === 'openai' ? 'openai/scripted-gpt' : 'anthropic/scripted-claude';
  const env = wire === 'openai' ? { OPENAI_API_KEY: KEY } : { ANTHROPIC_API_KEY: KEY };
  // Fast retries keep the retry tests short; the policy is the library's (backoff honouring Retry-After).
  const policy = { requestTimeoutMs: 20_000, maxRetries: 2 };
  return new LlmAgent(resolveModel(name, { baseUrl, env }), { ...DEFAULT_LLM_SETTINGS, policy, ...settings });
}

const SOLVE: ScriptEntry[] = [
  {
    text: 'Let me look at the file.',
    toolCalls: [{ name: 'bash', arguments: { command: 'cat greeting.txt' } }],
    usage: { input: 120, output: 15, cached: 20 },
  },
  {
    toolCalls: [
      {
        name: 'editor',
        arguments: { command: 'str_replace', path: 'greeting.txt', old_str: 'wrld', new_str: 'world' },
      },
    ],
  },
  { toolCalls: [{ name: 'bash', arguments: { command: 'wc -l < greeting.txt' } }] },
  { text: 'Done.', toolCalls: [{ name: 'submit', arguments: { answer: '1' } }] },
];

/** Every string a key could hide in: the trace file, the events, the tool outputs. */
function assertNoKey(where: string, text: string): void {
  assert.equal(text.includes(KEY), false, `the model key appears in ${where}`);
}

export function defineLlmRolloutTests(put: ProviderUnderTest): void {
  const withModel = async (wire: ModelWire, script: ScriptEntry[], opts: ScriptOptions = {}) => {
    const server = await startScriptedModel(wire, script, opts);
    return server;
  };

  describe(`llm agent on ${put.name}`, () => {
    after(removeScratch);

    for (const wire of ['openai', 'anthropic'] as const) {
      test(`${wire}: bash, read its output, edit a file, submit: reward 1, every step in the trace in order`, async () => {
        const server = await withModel(wire, SOLVE);
        try {
          const { outcome, substrates } = await rolloutOn(put, FIX_FILE, agentFor(wire, server.baseUrl));
          assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
          assert.equal(outcome.reward, 1, JSON.stringify(outcome.result));
          const trace = readTrace(outcome.tracePath!);
          assert.deepEqual(
            trace.agentSteps.map((s) => s.toolCalls.map((c) => c.name)),
            [['bash'], ['editor'], ['bash'], ['submit']],
          );
          assert.match(String(trace.agentSteps[0]!.toolCalls[0]!.output), /hello wrld/);
          assert.match(String(trace.agentSteps[2]!.toolCalls[0]!.output), /^1\n\[exit code 0\]/);
          assert.deepEqual(trace.agentSteps[0]!.usage, { input: 120, output: 15, cached: 20 });
          assert.equal(
            trace.agent.detail,
            `llm: ${wire === 'openai' ? 'openai/scripted-gpt' : 'anthropic/scripted-claude'}`,
          );
          assert.equal(trace.answer, '1');
          // The model read the file's content: the second request carries the first tool's output.
          assert.equal(server.requests.length, 4);
          assert.match(JSON.stringify(server.requests[1]!.body['messages']), /hello wrld/);
          const tools = server.requests[0]!.body['tools'] as { name?: string; function?: { name: string } }[];
          assert.deepEqual(
            tools.map((t) => t.function?.name ?? t.name),
            ['bash', 'editor', 'submit'],
          );
          // The key reached the model server, and nothing else.
          const h = server.requests[0]!.headers;
          // The Anthropic library sends its key as x-api-key or as a bearer token, depending on its version.
          assert.ok(
            [h['authorization'], h['x-api-key']].some((v) => v === KEY || v === `Bearer ${KEY}`),
            'the model server got the key',
          );
          assertNoKey('the trace', readFileSync(outcome.tracePath!, 'utf8'));
          await put.assertReleased(substrates, outcome.rolloutId);
        } finally {
          await server.close();
        }
      });
    }

    test('429 with Retry-After, then 200: retried and completed', async () => {
      const server = await withModel('openai', [{ status: 429, headers: { 'retry-after': '1' } }, ...SOLVE]);
      try {
        const { outcome } = await rolloutOn(put, FIX_FILE, agentFor('openai', server.baseUrl));
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        assert.equal(outcome.reward, 1);
        assert.equal(server.requests.length, 5, 'the 429 was retried once');
      } finally {
        await server.close();
      }
    });

    test('persistent 500s end as an agent error with the reason, after the retries', async () => {
      const server = await withModel('openai', [], {
        whenExhausted: { status: 500, body: { error: { message: 'upstream on fire' } } },
      });
      try {
        const { outcome, substrates } = await rolloutOn(put, FIX_FILE, agentFor('openai', server.baseUrl));
        assert.equal(outcome.status, 'error');
        assert.equal(outcome.error?.phase, 'actor');
        assert.match(outcome.error.message, /HTTP 500/);
        assert.equal(server.requests.length, 3, 'one request and two retries');
        await put.assertReleased(substrates, outcome.rolloutId);
      } finally {
        await server.close();
      }
    });

    test('malformed tool arguments are a failed step the model is told about; the run goes on', async () => {
      const script: ScriptEntry[] = [{ toolCalls: [{ name: 'bash', arguments: '{"command": "ls' }] }, ...SOLVE];
      const server = await withModel('openai', script);
      try {
        const { outcome } = await rolloutOn(put, FIX_FILE, agentFor('openai', server.baseUrl));
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        assert.equal(outcome.reward, 1);
        const first = readTrace(outcome.tracePath!).agentSteps[0]!.toolCalls[0]!;
        assert.equal(first.isError, true);
        assert.match(String(first.output), /not a JSON object/);
        const told = JSON.stringify(server.requests[1]!.body['messages']);
        assert.match(told, /not a JSON object/);
      } finally {
        await server.close();
      }
    });

    test('cancel during a model request aborts it and leaves nothing behind', async () => {
      const server = await withModel('openai', [{ hang: true }]);
      try {
        let aborted = false;
        const run = rolloutOn(put, FIX_FILE, agentFor('openai', server.baseUrl), {
          onEvent: (e, abort) => {
            if (e.type === 'step' && e.step === 'agent' && e.status === 'started') {
              void server.waitForRequests(1).then(() => {
                aborted = true;
                abort();
              });
            }
          },
        });
        const { outcome, substrates } = await run;
        assert.ok(aborted);
        assert.equal(outcome.status, 'cancelled');
        await put.assertReleased(substrates, outcome.rolloutId);
        assert.equal(server.requests[0]!.abandoned, true, 'the request in flight was aborted');
      } finally {
        await server.close();
      }
    });

    test('max steps without submit is an agent error naming the limit', async () => {
      const loop: ScriptEntry = { toolCalls: [{ name: 'bash', arguments: { command: 'true' } }] };
      const server = await withModel('anthropic', [loop, loop, loop]);
      try {
        const { outcome } = await rolloutOn(put, FIX_FILE, agentFor('anthropic', server.baseUrl, { maxSteps: 2 }));
        assert.equal(outcome.status, 'error');
        assert.match(outcome.error!.message, /did not submit within 2 steps/);
      } finally {
        await server.close();
      }
    });
  });
}

export { assertNoKey, KEY };
