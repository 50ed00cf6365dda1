/**
 * Grade frames (wire: `score`) as the engine records them (`reward`), and the
 * error result that stands in for a failed actor grading (docs/hud-protocol.md).
 *
 * The SDK's server sends every field of its result model, unset ones as
 * `null` (`subscores`, `content`, a subscore's `children` and `info`), so
 * null reads as absent. A subscore is read as the SDK's client reads it into
 * its model: numbers may come as numeric text or booleans, a field it does
 * not know is refused. A subscore that cannot be read fails the grade: the
 * SDK's client refuses such a frame too, and a summary that silently lost a
 * part would no longer add up to the reward (docs/hud-protocol.md).
 */
import { ProtocolError } from './errors';
import type { GradeResult, SubScoreT } from '../../../common/trace/schema';

/** Two decimals for people; rewards are not clamped, so negatives and values above 1 show as they are. */
export function formatScore(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const s = x.toFixed(2);
  return s === '-0.00' ? '0.00' : s;
}

export function gradeFromFrame(frame: Record<string, unknown>): GradeResult {
  const rawSubs = frame['subscores'] ?? [];
  if (!Array.isArray(rawSubs)) throw unreadable('"subscores" is not a list', rawSubs);
  const subscores = rawSubs.map((raw, i) => readSubScore(raw, `subscores[${i}]`));
  const info = frame['info'];
  const content = frame['content'];
  return {
    reward: typeof frame['score'] === 'number' ? frame['score'] : null,
    subscores,
    info: isObject(info) ? info : {},
    ...(content !== undefined && content !== null ? { content } : {}),
    isError: frame['isError'] === true,
  };
}

const SUBSCORE_FIELDS = new Set(['name', 'value', 'weight', 'children', 'info', 'metadata']);
const NUMERIC_TEXT = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A number as the SDK's model takes one: a number, a boolean (1 or 0), or numeric text. */
function laxNumber(x: unknown): number | undefined {
  if (typeof x === 'number') return x;
  if (typeof x === 'boolean') return x ? 1 : 0;
  if (typeof x === 'string' && NUMERIC_TEXT.test(x)) return Number(x);
  return undefined;
}

/** The SDK calls a subscore's metadata `info` (older frames: `metadata`); default weight is 1. */
function readSubScore(raw: unknown, where: string): SubScoreT {
  if (!isObject(raw)) throw unreadable(`${where} is not an object`, raw);
  const { name } = raw;
  if (typeof name !== 'string' || name === '') throw unreadable(`${where} has no string "name"`, raw);
  const unknown = Object.keys(raw).filter((k) => !SUBSCORE_FIELDS.has(k));
  if (raw['info'] !== undefined && raw['metadata'] !== undefined) unknown.push('metadata');
  if (unknown.length)
    throw unreadable(`${where} ("${name}") has fields a subscore does not have: ${unknown.join(', ')}`, raw);
  const value = laxNumber(raw['value']);
  if (value === undefined || !Number.isFinite(value) || value < 0 || value > 1) {
    throw unreadable(`${where} ("${name}") needs a "value" between 0 and 1`, raw);
  }
  const weight = 'weight' in raw ? laxNumber(raw['weight']) : 1;
  if (weight === undefined || !Number.isFinite(weight))
    throw unreadable(`${where} ("${name}") has a non-numeric "weight"`, raw);
  const metadata = raw['info'] ?? raw['metadata'];
  if (metadata !== undefined && metadata !== null && !isObject(metadata)) {
    throw unreadable(`${where} ("${name}") has "info" that is not an object`, raw);
  }
  const children = raw['children'] ?? undefined;
  if (children !== undefined && !Array.isArray(children))
    throw unreadable(`${where} ("${name}") has "children" that is not a list`, raw);
  return {
    name,
    value,
    weight,
    ...(isObject(metadata) ? { metadata } : {}),
    ...(children
      ? { children: children.map((c: unknown, i: number) => readSubScore(c, `${where}.children[${i}]`)) }
      : {}),
  };
}

function unreadable(what: string, raw: unknown): ProtocolError {
  const text = JSON.stringify(raw) ?? String(raw);
  return new ProtocolError(`tasks.grade returned a subscore that cannot be read: ${what}: ${text.slice(0, 200)}`, {
    hint: 'yield SubScore(name=..., value=0..1, weight=...) objects, e.g. from hud.graders',
  });
}

function isObject(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

/** What the verifier receives when the actor's own grading failed: the answer survives. */
export function actorErrorResult(answer: unknown, why: string): Record<string, unknown> {
  return { score: 0.0, answer, isError: true, content: why };
}
