/**
 * The llm agent loop's own cost per step: a scripted OpenAI-compatible server
 * on 127.0.0.1 answers each request after a fixed latency with one `bash`
 * call; tools run against an in-memory workspace. The loop's overhead is the
 * wall time minus the server's time (request in to reply out, measured by the
 * server) minus the tools' time, per step, reported as a ratio to the
 * server's latency. Prints JSON.
 *
 *   npm run bench -- agent-loop [--steps N] [--latency-ms L] [--runs R]
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { AgentContext } from '../../client/src/engine/agents/agent';
import { DEFAULT_LLM_SETTINGS, LlmAgent } from '../../client/src/engine/agents/llm/llmAgent';
import { resolveModel } from '../../client/src/engine/agents/llm/modelRef';
import { startScriptedModel, type ScriptEntry } from '../../test/support/scriptedModels';
import { machineInfo } from '../support/machine';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '50' },
    'latency-ms': { type: 'string', default: '20' },
    runs: { type: 'string', default: '5' },
  },
});
const steps = Number(values.steps);
const latencyMs = Number(values['latency-ms']);
const runs = Number(values.runs);

async function once(): Promise<{ wallMs: number; serverMs: number; toolMs: number }> {
  const script: ScriptEntry[] = [
    ...Array.from({ length: steps - 1 }, (_, i): ScriptEntry => ({
      toolCalls: [{ name: 'bash', arguments: { command: `echo step ${i}` } }],
    })),
    { toolCalls: [{ name: 'submit', arguments: { answer: 'done' } }] },
  ];
  const server = await startScriptedModel('openai', script, { latencyMs });
  let toolMs = 0;
  const ctx: AgentContext = {
    prompt: { prompt: 'benchmark' },
    promptText: 'benchmark',
    signal: new AbortController().signal,
    workspace: {
      workdir: '/work',
      bindings: [],
      copyIn: async () => undefined,
      exec: async (argv) => {
        const t = performance.now();
        const out = { exitCode: 0, stdout: `${argv.at(-1) ?? ''}\n`, stderr: '', timedOut: false };
        toolMs += performance.now() - t;
        return out;
      },
    },
    log: () => undefined,
    step: () => undefined,
  };
  const agent = new LlmAgent(resolveModel('openai-compatible/bench', { baseUrl: server.baseUrl, env: {} }), {
    ...DEFAULT_LLM_SETTINGS,
    maxSteps: steps,
  });
  const t0 = performance.now();
  await agent.run(ctx);
  const wallMs = performance.now() - t0;
  const serverMs = server.requests.reduce((sum, r) => sum + r.serverMs, 0);
  await server.close();
  return { wallMs, serverMs, toolMs };
}

async function main(): Promise<void> {
  await once(); // warm-up: module loading, JIT, the first connection
  const samples: { overheadPerStepMs: number; ratio: number }[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await once();
    const overheadPerStepMs = (r.wallMs - r.serverMs - r.toolMs) / steps;
    samples.push({ overheadPerStepMs, ratio: overheadPerStepMs / latencyMs });
  }
  const sorted = [...samples].sort((a, b) => a.ratio - b.ratio);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  process.stdout.write(
    `${JSON.stringify(
      {
        benchmark: 'agent-loop',
        machine: machineInfo(),
        steps,
        serverLatencyMs: latencyMs,
        runs,
        overheadPerStepMs: round(median.overheadPerStepMs),
        ratioToServerLatency: round(median.ratio),
        samples: samples.map((s) => ({ overheadPerStepMs: round(s.overheadPerStepMs), ratio: round(s.ratio) })),
      },
      null,
      2,
    )}\n`,
  );
}

void main();
