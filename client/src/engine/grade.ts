/**
 * Grade frames (wire: `score`) as the engine records them (`reward`), and the
 * error result that stands in for a failed actor grading (docs/hud-protocol.md).
 */
import { SubScore, type GradeResult, type SubScoreT } from './trace/schema';

/** Two decimals for people; rewards are not clamped, so negatives and values above 1 show as they are. */
export function formatScore(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const s = x.toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}

export function gradeFromFrame(frame: Record<string, unknown>): { result: GradeResult; dropped: number } {
  const subs: SubScoreT[] = [];
  let dropped = 0;
  for (const raw of Array.isArray(frame['subscores']) ? frame['subscores'] : []) {
    const s = SubScore.safeParse(normaliseSubScore(raw));
    if (s.success) subs.push(s.data);
    else dropped++;
  }
  const info = frame['info'];
  return {
    result: {
      reward: typeof frame['score'] === 'number' ? frame['score'] : null,
      subscores: subs,
      info: info && typeof info === 'object' && !Array.isArray(info) ? (info as Record<string, unknown>) : {},
      ...(frame['content'] !== undefined ? { content: frame['content'] } : {}),
      isError: frame['isError'] === true,
    },
    dropped,
  };
}

/** The SDK calls a subscore's metadata `info`; default weight is 1. */
function normaliseSubScore(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object') return raw;
  const s = raw as Record<string, unknown>;
  const metadata = s['metadata'] ?? s['info'];
  return {
    name: s['name'],
    value: s['value'],
    weight: s['weight'] ?? 1,
    ...(metadata && typeof metadata === 'object' ? { metadata } : {}),
    ...(Array.isArray(s['children']) ? { children: s['children'].map(normaliseSubScore) } : {}),
  };
}

/** What the verifier receives when the actor's own grading failed: the answer survives. */
export function actorErrorResult(answer: unknown, why: string): Record<string, unknown> {
  return { score: 0.0, answer, isError: true, content: why };
}
