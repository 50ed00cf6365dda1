/**
 * The llm agent on a VS Code chat model (docs/models.md), through the typed
 * interface the editor binds to `vscode.lm`: a fake model object and fake
 * part classes stand in for VS Code's. A real VS Code with chat models was
 * not available to the test suite (code-server offers none).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AgentContext } from '../../../client/src/engine/agents/agent';
import {
  EditorModelClient,
  type EditorChatModel,
  type EditorLanguageModelApi,
  type EditorPart,
  type EditorRequestOptions,
} from '../../../client/src/engine/agents/llm/editorModelClient';
import { DEFAULT_LLM_SETTINGS, LlmAgent } from '../../../client/src/engine/agents/llm/llmAgent';
import { editorModelEndpoint, resolveModel } from '../../../client/src/engine/agents/llm/modelRef';
import { ModelRequestError } from '../../../client/src/engine/agents/llm/modelErrors';
import { CancelledError, UsageError } from '../../../client/src/engine/errors';

// Stand-ins for vscode.LanguageModelTextPart, ToolCallPart, ToolResultPart and ChatMessage.
class TextPart {
  constructor(readonly value: string) {}
}
class ToolCallPart {
  constructor(
    readonly callId: string,
    readonly name: string,
    readonly input: object,
  ) {}
}
class ToolResultPart {
  constructor(
    readonly callId: string,
    readonly content: TextPart[],
  ) {}
}
class Message {
  constructor(
    readonly role: 'user' | 'assistant',
    readonly content: EditorPart[],
  ) {}
}
class LmError extends Error {
  constructor(readonly code: string) {
    super(`lm error ${code}`);
  }
}

const api: EditorLanguageModelApi = {
  userMessage: (parts) => new Message('user', parts),
  assistantMessage: (parts) => new Message('assistant', parts),
  textPart: (text) => new TextPart(text),
  toolCallPart: (id, name, input) => new ToolCallPart(id, name, input),
  toolResultPart: (id, text) => new ToolResultPart(id, [new TextPart(text)]),
  textOf: (p) => (p instanceof TextPart ? p.value : undefined),
  toolCallOf: (p) => (p instanceof ToolCallPart ? p : undefined),
  cancellation: (signal) => {
    const token = { isCancellationRequested: signal.aborted };
    const on = (): void => void (token.isCancellationRequested = true);
    signal.addEventListener('abort', on);
    return { token, dispose: () => signal.removeEventListener('abort', on) };
  },
  errorCode: (err) => (err instanceof LmError ? err.code : undefined),
};

type Reply = unknown[] | Error | 'hang';

/** A model object shaped like vscode.LanguageModelChat that replays replies and records requests. */
function fakeModel(replies: Reply[]): EditorChatModel & {
  requests: { messages: Message[]; options: EditorRequestOptions; token: { isCancellationRequested: boolean } }[];
} {
  const requests: {
    messages: Message[];
    options: EditorRequestOptions;
    token: { isCancellationRequested: boolean };
  }[] = [];
  return {
    id: 'copilot-fake',
    name: 'Fake',
    vendor: 'test',
    requests,
    async sendRequest(messages, options, token) {
      requests.push({ messages: messages as Message[], options, token: token as { isCancellationRequested: boolean } });
      const reply = replies.shift();
      if (reply === undefined) throw new Error('no reply scripted');
      if (reply instanceof Error) throw reply;
      if (reply === 'hang') {
        const t = token as { isCancellationRequested: boolean };
        await new Promise<void>((resolve) => {
          const poll = setInterval(() => t.isCancellationRequested && (clearInterval(poll), resolve()), 5);
        });
        throw new Error('cancelled by the token');
      }
      return {
        stream: (async function* () {
          yield* reply;
        })(),
      };
    },
    countTokens: async (text) => text.length,
  };
}

function context(signal: AbortSignal, ran: string[][]): AgentContext & { steps: unknown[] } {
  const steps: unknown[] = [];
  return {
    prompt: { prompt: 'Say hi, then submit 1.' },
    promptText: 'Say hi, then submit 1.',
    signal,
    steps,
    workspace: {
      workdir: '/workspace',
      bindings: [],
      copyIn: async () => undefined,
      exec: async (argv) => {
        ran.push(argv);
        return { exitCode: 0, stdout: 'hi\n', stderr: '', timedOut: false };
      },
    },
    log: () => undefined,
    step: (text, toolCalls, usage) => void steps.push({ text, toolCalls, usage }),
  };
}

function agentOn(model: EditorChatModel): LlmAgent {
  const endpoint = editorModelEndpoint(model.id);
  return new LlmAgent(endpoint, DEFAULT_LLM_SETTINGS, new EditorModelClient(endpoint.name, model, api));
}

describe('the llm agent on a VS Code chat model (fake vscode.lm objects)', () => {
  test('tools go out as the API declares them; calls, results and the answer round-trip; tokens are counted', async () => {
    const model = fakeModel([
      [new TextPart('Running it.'), new ToolCallPart('call-1', 'bash', { command: 'echo hi' })],
      [new ToolCallPart('call-2', 'submit', { answer: '1' })],
    ]);
    const ran: string[][] = [];
    const ctx = context(new AbortController().signal, ran);
    const agent = agentOn(model);
    assert.equal(agent.describe(), 'llm: vscode/copilot-fake');
    assert.equal(await agent.run(ctx), '1');
    assert.equal(ran.length, 1);
    assert.ok(ran[0]!.includes('echo hi'), JSON.stringify(ran[0]));
    const [first, second] = model.requests;
    assert.deepEqual(
      first!.options.tools.map((t) => t.name),
      ['bash', 'editor', 'submit'],
    );
    assert.equal(first!.options.tools[0]!.inputSchema['type'], 'object');
    assert.equal(first!.options.modelOptions['maxTokens'], DEFAULT_LLM_SETTINGS.maxOutputTokens);
    // No system role in the API: the system prompt is the first user message, the task's prompt the second.
    assert.equal(first!.messages[0]!.role, 'user');
    assert.match((first!.messages[0]!.content[0] as TextPart).value, /submit/);
    assert.equal((first!.messages[1]!.content[0] as TextPart).value, 'Say hi, then submit 1.');
    // The second request carries the model's call and the tool's result, paired by call id.
    const assistant = second!.messages[2]!;
    assert.equal(assistant.role, 'assistant');
    assert.deepEqual(assistant.content[1], new ToolCallPart('call-1', 'bash', { command: 'echo hi' }));
    const result = second!.messages[3]!.content[0] as ToolResultPart;
    assert.equal(result.callId, 'call-1');
    assert.match(result.content[0]!.value, /^hi\n\[exit code 0\]/);
    // Usage is the model's own count (here: characters) of what went in and came out.
    const usage = (ctx.steps[0] as { usage: { input: number; output: number; cached: number } }).usage;
    assert.ok(usage.input > 'Say hi, then submit 1.'.length, JSON.stringify(usage));
    assert.equal(usage.output, 'Running it.\nbash {"command":"echo hi"}'.length);
    assert.equal(usage.cached, 0);
  });

  test('cancel reaches the request through its cancellation token', async () => {
    const model = fakeModel(['hang']);
    const ctl = new AbortController();
    const run = agentOn(model).run(context(ctl.signal, []));
    while (model.requests.length === 0) await new Promise((r) => setImmediate(r));
    ctl.abort();
    await assert.rejects(run, (e: unknown) => e instanceof CancelledError);
    assert.equal(model.requests[0]!.token.isCancellationRequested, true);
  });

  test("the API's refusals are agent errors that say what to do", async () => {
    const model = fakeModel([new LmError('NoPermissions')]);
    await assert.rejects(
      agentOn(model).run(context(new AbortController().signal, [])),
      (e: unknown) => e instanceof ModelRequestError && /did not allow HUD Studio to use this model/.test(e.message),
    );
  });

  test('the CLI cannot name a VS Code model', () => {
    assert.throws(
      () => resolveModel('vscode/copilot-gpt-4o', { env: {} }),
      (e: unknown) => e instanceof UsageError && /only the editor can reach/.test(e.message),
    );
  });
});
