/**
 * The environment's MCP tools offered to the model (docs/models.md): each
 * `mcp/...` capability is reached with the official MCP TypeScript SDK
 * client over `tunnel.open` connections, its tools are listed once, and a
 * call's result goes back to the model as text. Tool names are
 * `mcp__CAPABILITY__TOOL`, so they never collide with `bash`, `editor` or
 * `submit`, nor with another capability's tools.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { isMcpProtocol } from '../../capabilityProtocols';
import type { AgentWorkspace } from '../agent';
import { AgentError } from '../command';
import type { ToolSpec } from './conversation';
import type { ExtraTools } from './tools';
import { fetchOverTunnel } from './tunnelFetch';

type Binding = AgentWorkspace['bindings'][number];

/** What the MCP handshake names this client as; servers only log it. */
const CLIENT_VERSION = '1';

interface McpTool {
  capability: string;
  tool: string;
  client: Client;
}

export class McpToolset implements ExtraTools {
  private constructor(
    readonly specs: ToolSpec[],
    private readonly tools: Map<string, McpTool>,
    private readonly clients: Client[],
    readonly via: string[],
  ) {}

  /** Connects to every `mcp/...` binding (the caller checked there is one, and a tunnel to reach it). */
  static async connect(ws: AgentWorkspace, signal: AbortSignal): Promise<McpToolset> {
    const bindings = ws.bindings.filter((b) => isMcpProtocol(b.protocol));
    const specs: ToolSpec[] = [];
    const tools = new Map<string, McpTool>();
    const clients: Client[] = [];
    const via: string[] = [];
    try {
      for (const b of bindings) {
        const client = new Client({ name: 'hud-studio', version: CLIENT_VERSION });
        await client.connect(transportFor(b, ws, signal), { signal });
        clients.push(client);
        const listed = await client.listTools(undefined, { signal });
        for (const t of listed.tools) {
          const name = toolName(b.name, t.name);
          tools.set(name, { capability: b.name, tool: t.name, client });
          specs.push({
            name,
            description: `${t.description ?? t.name} (tool "${t.name}" of the environment's MCP server "${b.name}")`,
            parameters: t.inputSchema,
          });
        }
        via.push(`${b.protocol} capability "${b.name}" (${listed.tools.length} tools)`);
      }
    } catch (err) {
      await Promise.allSettled(clients.map((c) => c.close()));
      if (signal.aborted || err instanceof AgentError) throw err;
      throw new AgentError(
        `cannot list the tools of the environment's MCP capability: ${(err as Error).message}`,
        'check that the MCP server the environment starts answers at its published url',
      );
    }
    return new McpToolset(specs, tools, clients, via);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  async call(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ content: string; isError: boolean }> {
    const t = this.tools.get(name)!;
    try {
      const result = await t.client.callTool({ name: t.tool, arguments: args }, undefined, { signal });
      return { content: resultText(result), isError: result.isError === true };
    } catch (err) {
      // The server answered with an error (bad arguments, a tool that raised): the model hears it and goes on.
      if (err instanceof McpError && !signal.aborted) return { content: `error: ${err.message}`, isError: true };
      if (signal.aborted || err instanceof AgentError) throw err;
      throw new AgentError(
        `the MCP capability "${t.capability}" stopped answering (tool "${t.tool}"): ${(err as Error).message}`,
      );
    }
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.clients.map((c) => c.close()));
  }
}

function transportFor(b: Binding, ws: AgentWorkspace, signal: AbortSignal): Transport {
  const url = new URL(b.url);
  const token = typeof b.params['auth_token'] === 'string' ? b.params['auth_token'] : undefined;
  const requestInit: RequestInit = token ? { headers: { authorization: `Bearer ${token}` } } : {};
  if (url.protocol !== 'http:') {
    throw new AgentError(
      `MCP capability "${b.name}" is served at ${b.url}; HUD Studio reaches MCP servers through the control port only over plain http`,
      'serve the MCP server over streamable HTTP on http:// inside the environment',
    );
  }
  const fetch = fetchOverTunnel(() => ws.openTunnel!(b.name, signal));
  if (b.params['transport'] === 'sse') return new SSEClientTransport(url, { fetch, requestInit });
  return new StreamableHTTPClientTransport(url, { fetch, requestInit });
}

/** Names the model APIs accept: letters, digits, `_` and `-`, at most 64. */
function toolName(capability: string, tool: string): string {
  const clean = (s: string): string => s.replace(/[^A-Za-z0-9_-]/g, '_');
  return `mcp__${clean(capability)}__${clean(tool)}`.slice(0, 64);
}

function resultText(result: Record<string, unknown>): string {
  const parts: string[] = [];
  const content = Array.isArray(result['content']) ? (result['content'] as Record<string, unknown>[]) : [];
  for (const c of content) {
    if (c['type'] === 'text' && typeof c['text'] === 'string') parts.push(c['text']);
    else if (c['type'] === 'resource' || c['type'] === 'resource_link') parts.push(JSON.stringify(c));
    else parts.push(`[${String(c['type'])} content${typeof c['mimeType'] === 'string' ? ` (${c['mimeType']})` : ''}]`);
  }
  if (!parts.length && result['structuredContent'] !== undefined)
    parts.push(JSON.stringify(result['structuredContent']));
  if (!parts.length && result['toolResult'] !== undefined) parts.push(JSON.stringify(result['toolResult']));
  return parts.join('\n');
}
