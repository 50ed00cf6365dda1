/**
 * Scripted model servers for tests: real HTTP on 127.0.0.1 speaking the
 * OpenAI chat-completions or the Anthropic Messages wire format. Each request
 * takes the next entry of the script (a reply with text and tool calls, an
 * HTTP error, or a hang) and is recorded (path, headers, body), so tests can
 * check what a model would have received, including the auth header. One
 * server can host several models, each with its own script, chosen by the
 * request's `model` field (as one vLLM or Ollama server serves many).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedToolCall {
  name: string;
  /** An object is sent as JSON; a string is sent as-is (to script malformed arguments). */
  arguments: Record<string, unknown> | string;
}

export type ScriptEntry =
  | { text?: string; toolCalls?: ScriptedToolCall[]; usage?: { input: number; output: number; cached?: number } }
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { hang: true };

export interface RecordedRequest {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** The client went away before the reply (cancel, timeout). */
  abandoned: boolean;
  /** Time from the request's last byte to the reply's (performance.now() ms): the "model's own time". */
  serverMs: number;
}

export type ModelWire = 'openai' | 'anthropic';

export interface ScriptedModelServer {
  /** What to pass as --base-url (`/v1` included for OpenAI, as its clients expect). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Resolves once `n` requests have arrived. */
  waitForRequests(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface ScriptOptions {
  /** Served when the script is used up (e.g. a 500 for "persistent failure"); default: a 400 that names the cause. */
  whenExhausted?: ScriptEntry;
  /** Added before every reply, to model a server's latency. */
  latencyMs?: number;
}

export async function startScriptedModel(
  wire: ModelWire,
  script: ScriptEntry[] | Record<string, ScriptEntry[]>,
  opts: ScriptOptions = {},
): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const next = new Map<string, number>();
  let callId = 0;
  const server: Server = createServer((req, res) => {
    void readJson(req).then((body) => {
      const received = performance.now();
      const rec: RecordedRequest = { path: req.url ?? '', headers: req.headers, body, abandoned: false, serverMs: 0 };
      requests.push(rec);
      res.on('close', () => {
        if (!res.writableFinished) rec.abandoned = true;
      });
      res.on('finish', () => (rec.serverMs = performance.now() - received));
      for (const w of waiters.filter((x) => requests.length >= x.n)) w.resolve();
      const model = Array.isArray(script) ? '' : String(body['model']);
      const entries = Array.isArray(script) ? script : (script[model] ?? []);
      const i = next.get(model) ?? 0;
      next.set(model, i + 1);
      const entry = entries[i] ??
        opts.whenExhausted ?? { status: 400, body: { error: { message: 'the test script is used up' } } };
      const send = (): void => reply(wire, entry, res, body, () => `call_${++callId}`);
      if (opts.latencyMs) setTimeout(send, opts.latencyMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: wire === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
    requests,
    waitForRequests: (n) =>
      requests.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      } catch {
        resolve({});
      }
    });
  });
}

function reply(
  wire: ModelWire,
  entry: ScriptEntry,
  res: ServerResponse,
  body: Record<string, unknown>,
  newId: () => string,
): void {
  if ('hang' in entry) return;
  if ('status' in entry) {
    res.writeHead(entry.status, { 'content-type': 'application/json', ...entry.headers });
    res.end(JSON.stringify(entry.body ?? { error: { message: `scripted ${entry.status}` } }));
    return;
  }
  const usage = entry.usage ?? { input: 100, output: 10 };
  const calls = (entry.toolCalls ?? []).map((c) => ({ id: newId(), ...c }));
  const model = typeof body['model'] === 'string' ? body['model'] : 'scripted';
  const payload =
    wire === 'openai'
      ? {
          id: `chatcmpl-${newId()}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: entry.text ?? null,
                ...(calls.length
                  ? {
                      tool_calls: calls.map((c) => ({
                        id: c.id,
                        type: 'function',
                        function: {
                          name: c.name,
                          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
                        },
                      })),
                    }
                  : {}),
              },
              finish_reason: calls.length ? 'tool_calls' : 'stop',
            },
          ],
          usage: {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: usage.input + usage.output,
            prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
          },
        }
      : {
          id: `msg_${newId()}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [
            ...(entry.text ? [{ type: 'text', text: entry.text }] : []),
            ...calls.map((c) => ({
              type: 'tool_use',
              id: c.id,
              name: c.name,
              input: typeof c.arguments === 'string' ? {} : c.arguments,
            })),
          ],
          stop_reason: calls.length ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: {
            input_tokens: usage.input - (usage.cached ?? 0),
            output_tokens: usage.output,
            cache_read_input_tokens: usage.cached ?? 0,
            cache_creation_input_tokens: 0,
          },
        };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(payload));
}
