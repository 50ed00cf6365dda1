/**
 * The llm agent's MCP tools against the real HUD SDK's control port: the SDK
 * server (the peer) answers `tunnel.open` in its own words, and the engine's
 * tunnel and MCP client must work with it as with the bundled runtime
 * (test/integration/llm/tunnels.*.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UrlProvider } from '../../client/src/engine/providers/url';
import { runRollout } from '../../client/src/engine/rollout';
import { readTrace } from '../../client/src/engine/trace/store';
import { startScriptedModel } from '../support/scriptedModels';
import { agentFor } from '../integration/llm/llmRollout';
import { TUNNEL_FIXTURES } from '../integration/llm/tunnels';
import { peerPythonPath, serve, stop } from './peer';

test('real SDK server: the MCP tool is listed and called through its tunnel.open; reward 1', async () => {
  const served = await serve('mcp_env.py', 'tunnels', peerPythonPath(), TUNNEL_FIXTURES);
  const model = await startScriptedModel('openai', [
    { toolCalls: [{ name: 'mcp__calc__add', arguments: { a: 2, b: 3 } }] },
    { toolCalls: [{ name: 'submit', arguments: { answer: '5' } }] },
  ]);
  const traces = mkdtempSync(join(tmpdir(), 'hs-tunnels-sdk-'));
  try {
    const outcome = await runRollout({
      ref: `${join(TUNNEL_FIXTURES, 'mcp_env.py')}::task`,
      cwd: TUNNEL_FIXTURES,
      provider: new UrlProvider(served.address),
      agent: agentFor('openai', model.baseUrl),
      traceDir: traces,
    });
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
    assert.equal(outcome.reward, 1);
    const trace = readTrace(outcome.tracePath!);
    assert.deepEqual(
      trace.agentSteps.map((s) => s.toolCalls.map((c) => [c.name, c.output])),
      [[['mcp__calc__add', '5']], [['submit', undefined]]],
    );
  } finally {
    await model.close();
    await stop(served);
    rmSync(traces, { recursive: true, force: true });
  }
});
