/**
 * The verifier's model gateway for one rollout: a gateway with a fresh token,
 * relayed into the grading substrate, and the variables its processes get.
 * Each judge call is written to the verifier phase's log and handed to
 * onCall, which records it in the trace (shown under its subscore).
 */
import type { ModelEndpoint } from '../agents/llm/modelRef';
import type { Substrate } from '../providers/provider';
import type { LogStream } from '../../../../common/trace/schema';
import { formatJudgeCall, type JudgeCallRead } from './judgeCall';
import { ModelGateway } from './modelGateway';
import { startSubstrateGateway } from './substrateRelay';

export async function openJudgeGateway(
  substrate: Substrate,
  upstream: ModelEndpoint,
  signal: AbortSignal,
  log: (stream: LogStream, text: string) => void,
  onCall: (call: JudgeCallRead) => void,
): Promise<{ env: Record<string, string>; stop: () => void }> {
  const gateway = new ModelGateway({
    upstream,
    onCall: (c) => {
      log('engine', formatJudgeCall(c));
      onCall(c);
    },
  });
  const relay = await startSubstrateGateway(substrate, gateway, { signal, onError: (m) => log('engine', m) });
  log(
    'engine',
    `model gateway for judges at ${relay.url} (upstream ${upstream.name}; the substrate holds a per-rollout token only)`,
  );
  return { env: { HUD_GATEWAY_URL: relay.url, HUD_API_KEY: gateway.token }, stop: () => relay.stop() };
}
