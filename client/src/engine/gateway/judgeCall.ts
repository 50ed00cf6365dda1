/**
 * One judge call as the trace shows it: which model, which criterion, the
 * verdict and its reason, and the tokens. Read from the request and reply
 * the gateway forwarded; a grader's own prompt format is matched loosely
 * (the bundled runtime's "Requirement:/Mistake:" lines, the SDK's
 * <criterion> block), and anything unrecognised is left out, not guessed.
 */
import type { JudgeCall } from '../../../../common/trace/schema';

/** What the gateway reads of a call; the rollout adds the phase and the time (JudgeCall in the trace). */
export type JudgeCallRead = Omit<JudgeCall, 'phase' | 'at'>;

export function describeJudgeCall(
  model: string,
  request: Record<string, unknown>,
  status: number,
  reply: unknown,
  durationMs: number,
): JudgeCallRead {
  const call: JudgeCallRead = { model, status, durationMs };
  const prompt = userText(request);
  const criterion =
    /<criterion>\s*([\s\S]*?)\s*<\/criterion>/.exec(prompt)?.[1] ?? /(?:Requirement|Mistake): (.+)/.exec(prompt)?.[1];
  if (criterion) call.criterion = criterion.trim();
  const r = (reply ?? {}) as Record<string, unknown>;
  const text = replyText(r);
  if (text) {
    const parsed = parseJsonObject(text);
    const named = [parsed?.['verdict'], parsed?.['criterion_status']].find((v): v is string => typeof v === 'string');
    const verdict = named ?? /\b(UNMET|MET)\b/.exec(text)?.[1] ?? '';
    const reason = parsed?.['reason'] ?? parsed?.['explanation'];
    if (verdict) call.verdict = verdict.toUpperCase();
    if (typeof reason === 'string') call.reason = reason;
  }
  const u = r['usage'] as Record<string, unknown> | undefined;
  if (u) {
    const input = Number(u['prompt_tokens'] ?? u['input_tokens'] ?? 0);
    const output = Number(u['completion_tokens'] ?? u['output_tokens'] ?? 0);
    call.tokens = { input: Number.isFinite(input) ? input : 0, output: Number.isFinite(output) ? output : 0 };
  }
  return call;
}

export function formatJudgeCall(c: JudgeCallRead): string {
  const parts = [`judge ${c.model}`, `HTTP ${c.status}`];
  if (c.criterion) parts.push(`criterion "${c.criterion}"`);
  if (c.verdict) parts.push(c.verdict);
  if (c.reason) parts.push(`reason: ${c.reason}`);
  if (c.tokens) parts.push(`tokens in ${c.tokens.input} out ${c.tokens.output}`);
  return parts.join(' · ');
}

function userText(request: Record<string, unknown>): string {
  const messages = Array.isArray(request['messages']) ? (request['messages'] as Record<string, unknown>[]) : [];
  return messages
    .filter((m) => m && m['role'] === 'user')
    .map((m) => (typeof m['content'] === 'string' ? m['content'] : JSON.stringify(m['content'])))
    .join('\n');
}

function replyText(r: Record<string, unknown>): string {
  const choices = r['choices'] as { message?: { content?: unknown } }[] | undefined;
  const openai = choices?.[0]?.message?.content;
  if (typeof openai === 'string') return openai;
  const content = r['content'] as { type?: string; text?: string }[] | undefined;
  return Array.isArray(content) ? content.flatMap((b) => (b.type === 'text' && b.text ? [b.text] : [])).join('\n') : '';
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  try {
    const v: unknown = JSON.parse(text.slice(start, end + 1));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
