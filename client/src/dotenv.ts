/**
 * Reads `.env` files for `hudStudio.envFiles`: `KEY=value` lines, `#`
 * comments, optional `export `, single quotes literal, double quotes with
 * `\n` `\t` `\"` `\\` escapes. A bad line is an error naming file and line,
 * never silently skipped (a missing credential would fail far from its cause).
 */
import { HudStudioError } from './engine/errors';

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseDotenv(text: string, file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const body = line.startsWith('export ') ? line.slice(7).trimStart() : line;
    const eq = body.indexOf('=');
    const key = eq < 0 ? body : body.slice(0, eq).trim();
    if (eq < 0 || !KEY.test(key)) {
      throw new HudStudioError('usage', `not a KEY=value line: ${JSON.stringify(raw.slice(0, 60))}`, {
        location: { file, line: i + 1 },
        hint: 'write NAME=value (NAME: letters, digits, _), or start the line with # to comment it out',
      });
    }
    out[key] = value(body.slice(eq + 1).trim(), file, i + 1);
  });
  return out;
}

function value(v: string, file: string, line: number): string {
  const q = v[0];
  if (q === "'" || q === '"') {
    const end = findClosing(v, q);
    if (end < 0)
      throw new HudStudioError('usage', `unterminated ${q} quote`, {
        location: { file, line },
        hint: `close the value with ${q}`,
      });
    const inner = v.slice(1, end);
    return q === "'"
      ? inner
      : inner.replace(/\\([nrt"\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' })[c]!);
  }
  // Unquoted: an inline comment starts at " #".
  const hash = v.search(/\s#/);
  return (hash < 0 ? v : v.slice(0, hash)).trim();
}

function findClosing(v: string, q: string): number {
  for (let i = 1; i < v.length; i++) {
    if (q === '"' && v[i] === '\\') {
      i++;
      continue;
    }
    if (v[i] === q) return i;
  }
  return -1;
}
