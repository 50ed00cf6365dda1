/**
 * The llm agent's tools through the environment's capabilities
 * (docs/models.md): a scripted model fixes a file with bash and the editor
 * and calls the environment's MCP tool, each through a `tunnel.open`
 * connection on the control port, then submits. tunnels.docker.test.ts runs
 * it against an ssh/2 workspace (OpenSSH) in a container with network none;
 * tunnels.local.test.ts against the bundled runtime's shell on Local.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readTrace } from '../../../client/src/engine/trace/store';
import { removeScratch, rolloutOn, type ProviderUnderTest } from '../engine-local/rules';
import { startScriptedModel, type ModelWire, type ScriptEntry } from '../../support/scriptedModels';
import { agentFor } from './llmRollout';

export const TUNNEL_FIXTURES = join(__dirname, 'fixtures', 'tunnels');

export interface TunnelCase {
  put: ProviderUnderTest;
  wire: ModelWire;
  /** The fixture env file under fixtures/tunnels. */
  envFile: string;
  /** How the agent's log names the shell it used. */
  shellVia: RegExp;
  /** What the first bash call prints before the file (who, where, which interfaces). */
  firstOutput: RegExp;
  /** Set when the shell runs as the environment server's user: the self-graded reward is then marked forgeable. */
  forgeableBecause?: RegExp;
}

const SOLVE: ScriptEntry[] = [
  {
    text: 'Where am I?',
    toolCalls: [{ name: 'bash', arguments: { command: 'whoami; pwd; ls /sys/class/net 2>/dev/null; cat notes.txt' } }],
  },
  {
    toolCalls: [
      { name: 'editor', arguments: { command: 'str_replace', path: 'notes.txt', old_str: 'wrld', new_str: 'world' } },
    ],
  },
  { toolCalls: [{ name: 'mcp__calc__add', arguments: { a: 2 } }] },
  { toolCalls: [{ name: 'mcp__calc__add', arguments: { a: 2, b: 3 } }] },
  { text: 'The sum is 5.', toolCalls: [{ name: 'submit', arguments: { answer: '5' } }] },
];

export function defineTunnelTests(c: TunnelCase): void {
  describe(`llm agent tools through tunnels on ${c.put.name}`, () => {
    after(removeScratch);

    test(`${c.wire}: bash and editor over the shell capability, add over MCP: reward 1, steps in the trace`, async () => {
      const server = await startScriptedModel(c.wire, SOLVE);
      try {
        const ref = `${join(TUNNEL_FIXTURES, c.envFile)}::task`;
        const { outcome, substrates } = await rolloutOn(c.put, ref, agentFor(c.wire, server.baseUrl));
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        assert.equal(outcome.reward, 1, JSON.stringify(outcome.result));
        const trace = readTrace(outcome.tracePath!);
        assert.deepEqual(
          trace.agentSteps.map((s) => s.toolCalls.map((call) => call.name)),
          [['bash'], ['editor'], ['mcp__calc__add'], ['mcp__calc__add'], ['submit']],
        );
        const outputs = trace.agentSteps.map((s) => String(s.toolCalls[0]!.output));
        assert.match(outputs[0]!, c.firstOutput);
        assert.match(outputs[0]!, /hello wrld\n\[exit code 0\]$/);
        assert.equal(outputs[1], 'replaced one occurrence in notes.txt');
        // The server's JSON-RPC error is a failed step the model hears about, not the end of the run.
        assert.match(outputs[2]!, /^error: MCP error -32602: add needs integers a and b, got \{"a": 2\}$/);
        assert.equal(trace.agentSteps[2]!.toolCalls[0]!.isError, true);
        assert.equal(outputs[3], '5', 'the MCP result went back to the model');
        const lastTurn = (server.requests[4]!.body['messages'] as unknown[]).at(-1);
        assert.match(JSON.stringify(lastTurn), /"content":"5"/, 'the next request carries the tool result');
        // The model was offered the environment's tool next to the contract tools.
        const tools = server.requests[0]!.body['tools'] as { name?: string; function?: { name: string } }[];
        assert.deepEqual(
          tools.map((t) => t.function?.name ?? t.name),
          ['bash', 'editor', 'submit', 'mcp__calc__add'],
        );
        const log = trace.phases.flatMap((p) => p.logs.map((l) => l.text)).join('\n');
        assert.match(log, c.shellVia);
        assert.match(log, /MCP tools from mcp\/2025-11-25 capability "calc" \(1 tools\)/);
        if (c.forgeableBecause) {
          assert.equal(trace.forgeable, true);
          assert.ok(
            trace.warnings.some((w) => c.forgeableBecause!.test(w)),
            trace.warnings.join('\n'),
          );
        } else assert.equal(trace.forgeable ?? false, false, trace.warnings.join('\n'));
        await c.put.assertReleased(substrates, outcome.rolloutId);
      } finally {
        await server.close();
      }
    });
  });
}
