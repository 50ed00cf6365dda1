/**
 * The model gateway for judges (docs/models.md): what a grading substrate
 * reaches as HUD_GATEWAY_URL. It accepts only the per-rollout token it was
 * made with, forwards model requests to the configured upstream with the
 * real key added here on the host, and reports each call. The substrate
 * never sees a real key, and the gateway forwards nowhere but the upstream.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { ModelEndpoint } from '../agents/llm/modelRef';
import { describeJudgeCall, type JudgeCallRead } from './judgeCall';

export interface GatewayRequest {
  method: string;
  /** Path under the gateway's base URL, e.g. `/chat/completions`. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface GatewayResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Only model calls go through: no listing of keys, no arbitrary upstream paths. */
const ALLOWED_PATHS = new Set(['/chat/completions', '/v1/chat/completions', '/messages', '/v1/messages']);
const UPSTREAM_TIMEOUT_MS = 120_000;

export interface GatewayOptions {
  upstream: ModelEndpoint;
  onCall?: (call: JudgeCallRead) => void;
  /** For tests; default: fetch. */
  fetchImpl?: typeof fetch;
}

export class ModelGateway {
  /** Handed to the substrate as HUD_API_KEY: good for this gateway only. */
  readonly token = `hud-studio-rollout-${randomBytes(24).toString('hex')}`;

  constructor(private readonly opts: GatewayOptions) {}

  async handle(req: GatewayRequest, signal?: AbortSignal): Promise<GatewayResponse> {
    if (!this.authorized(req.headers))
      return json(401, { error: { message: 'the gateway token is missing or wrong' } });
    const path = req.path.split('?')[0] ?? '';
    if (req.method !== 'POST' || !ALLOWED_PATHS.has(path)) {
      return json(404, {
        error: { message: `the gateway serves POST /chat/completions and /messages, not ${req.method} ${path}` },
      });
    }
    const up = this.opts.upstream;
    const suffix = path.replace(/^\/v1(?=\/)/, '');
    const base = (
      up.baseURL ?? (up.api === 'anthropic' ? 'https://api.anthropic.com/v1' : 'https://api.openai.com/v1')
    ).replace(/\/$/, '');
    let requested: Record<string, unknown>;
    try {
      // A configured judge model wins over whatever name the grader asked for; `PROVIDER/*` passes the name through.
      const asked = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
      requested = up.model === '*' ? asked : { ...asked, model: up.model };
    } catch {
      return json(400, { error: { message: 'the request body is not JSON' } });
    }
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const key = up.apiKey();
    if (key)
      Object.assign(
        headers,
        up.api === 'anthropic'
          ? { 'x-api-key': key, 'anthropic-version': '2023-06-01' }
          : { authorization: `Bearer ${key}` },
      );
    const started = Date.now();
    let res: Response;
    try {
      res = await (this.opts.fetchImpl ?? fetch)(`${base}${suffix}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(requested),
        signal: signal
          ? AbortSignal.any([signal, AbortSignal.timeout(UPSTREAM_TIMEOUT_MS)])
          : AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
      });
    } catch (err) {
      this.opts.onCall?.(describeJudgeCall(up.name, requested, 502, undefined, Date.now() - started));
      return json(502, { error: { message: `the judge model's upstream did not answer: ${(err as Error).message}` } });
    }
    const out = Buffer.from(await res.arrayBuffer());
    let reply: unknown;
    try {
      reply = JSON.parse(out.toString('utf8'));
    } catch {
      reply = undefined;
    }
    this.opts.onCall?.(describeJudgeCall(up.name, requested, res.status, reply, Date.now() - started));
    return {
      status: res.status,
      headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' },
      body: out,
    };
  }

  private authorized(headers: Record<string, string>): boolean {
    const bearer = headers['authorization']?.replace(/^Bearer\s+/i, '');
    const offered = bearer ?? headers['x-api-key'] ?? '';
    const a = Buffer.from(offered);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}

function json(status: number, value: unknown): GatewayResponse {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}
