/**
 * The scripted model behind the test-only provider extension
 * (fixtures/model-provider): a real HTTP server on 127.0.0.1 that gets each
 * request the provider received from VS Code (messages, tool declarations,
 * model options) as JSON, keeps it, and answers with the parts its script
 * gives for that request.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedPart =
  | { type: 'text'; value: string }
  | { type: 'tool_call'; callId: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; callId: string; content: ScriptedPart[] }
  | { type: 'other'; kind: string };

export interface ScriptedMessage {
  role: string;
  content: ScriptedPart[];
}

/** One request as the provider forwarded it. */
export interface ScriptedRequest {
  model: string;
  messages: ScriptedMessage[];
  tools: { name: string; description: string; inputSchema: unknown }[];
  modelOptions: Record<string, unknown>;
}

/** What the model answers to a request: the parts of its reply. */
export type Script = (req: ScriptedRequest) => ScriptedPart[];

export interface ScriptedModelServer {
  url: string;
  /** Every request received so far, in order. */
  readonly requests: ScriptedRequest[];
  /** Replaces the script for the requests to come. */
  setScript(script: Script): void;
  close(): Promise<void>;
}

export async function startScriptedModelServer(script: Script): Promise<ScriptedModelServer> {
  let current = script;
  const requests: ScriptedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        if (req.method !== 'POST' || req.url !== '/chat') throw new Error(`no route ${req.method} ${req.url}`);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ScriptedRequest;
        requests.push(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ parts: current(body) }));
      } catch (err) {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(err instanceof Error ? err.message : String(err));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setScript: (s) => (current = s),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The tool results a request carries back, by call id, as their text. */
export function toolResultsOf(req: ScriptedRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of req.messages)
    for (const p of m.content)
      if (p.type === 'tool_result')
        out.set(p.callId, p.content.map((c) => (c.type === 'text' ? c.value : `[${c.type}]`)).join(''));
  return out;
}
