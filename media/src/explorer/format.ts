/** Formatting of numbers, times and untrusted values for display (pure). */

export function formatReward(reward: number | null | undefined): string {
  if (reward === null || reward === undefined) return '—';
  if (!Number.isFinite(reward)) return String(reward);
  return trimNumber(reward, 3);
}

export function trimNumber(n: number, digits = 3): string {
  if (!Number.isFinite(n)) return String(n);
  const s = n.toFixed(digits);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${trimNumber(ms / 1000, ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m} min ${s} s`;
}

/** Milliseconds between two ISO timestamps, or undefined when either is missing or invalid. */
export function between(from: string | undefined, to: string | undefined): number | undefined {
  if (!from || !to) return undefined;
  const d = Date.parse(to) - Date.parse(from);
  return Number.isFinite(d) ? Math.max(0, d) : undefined;
}

/** `12.345` -> `+12.35 s` style offset for log lines. */
export function formatOffset(ms: number): string {
  if (!Number.isFinite(ms)) return '';
  return `${(ms / 1000).toFixed(2)}s`;
}

export function formatClock(iso: string | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Levels of a value shown before the rest is folded into a marker. */
export const MAX_SHOWN_DEPTH = 48;

/**
 * A prompt/answer/tool value as text: strings as they are, anything else as
 * indented JSON, with levels past {@link MAX_SHOWN_DEPTH} folded into one
 * marker (a result nested thousands deep would overflow JSON.stringify's
 * stack and be unreadable anyway).
 */
export function valueText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return limitedJson(value, 0) ?? '';
}

function limitedJson(value: unknown, depth: number): string | undefined {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) return 'null';
    return typeof value === 'bigint' ? String(value) : JSON.stringify(value);
  }
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (depth >= MAX_SHOWN_DEPTH) return JSON.stringify(`[… nested deeper than ${MAX_SHOWN_DEPTH} levels, not shown]`);
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    const items = value.map((v) => limitedJson(v, depth + 1) ?? 'null');
    return `[\n${items.map((i) => pad + i).join(',\n')}\n${end}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
    const text = limitedJson(v, depth + 1);
    return text === undefined ? [] : [`${pad}${JSON.stringify(k)}: ${text}`];
  });
  return entries.length ? `{\n${entries.join(',\n')}\n${end}}` : '{}';
}

/** The prompt's text: a `{prompt: "..."}` frame shows its string, anything else its JSON. */
export function promptText(prompt: unknown): string {
  if (prompt && typeof prompt === 'object' && !Array.isArray(prompt)) {
    const p = (prompt as Record<string, unknown>).prompt;
    if (typeof p === 'string' && Object.keys(prompt).length === 1) return p;
  }
  return valueText(prompt);
}

export function shortId(id: string): string {
  return /^[0-9a-f]{20,}$/i.test(id) ? id.slice(0, 12) : id;
}
