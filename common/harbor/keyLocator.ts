/**
 * Finds where a key of a TOML document is written, so a schema error (which
 * zod reports as a key path) can point at a line. A line scanner is enough:
 * it follows `[table]` / `[[array]]` headers and `key = value` lines, and
 * falls back to the nearest written ancestor for values inside arrays or
 * inline tables.
 */

export interface KeyPosition {
  /** 1-based. */
  line: number;
  /** 1-based, where the key starts. */
  column: number;
}

export type KeyPath = readonly (string | number)[];

/** Maps `a.b.0.c`-style paths to where they are written. */
export function indexKeys(source: string): Map<string, KeyPosition> {
  const positions = new Map<string, KeyPosition>();
  const arrayCounts = new Map<string, number>();
  let table: string[] = [];
  let inMultiline: '"""' | "'''" | null = null;
  const lines = source.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (inMultiline) {
      if (raw.includes(inMultiline)) inMultiline = null;
      return;
    }
    const header = /^(\s*)(\[\[?)\s*([^\]]+?)\s*\]\]?/.exec(raw);
    if (header) {
      const parts = splitDottedKey(header[3]!);
      const column = header[1]!.length + 1;
      if (header[2] === '[[') {
        const base = parts.join('.');
        const index = arrayCounts.get(base) ?? 0;
        arrayCounts.set(base, index + 1);
        setOnce(positions, base, { line, column });
        table = [...parts, String(index)];
      } else {
        table = parts;
      }
      setOnce(positions, table.join('.'), { line, column });
      return;
    }
    const kv =
      /^(\s*)((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=(.*)$/.exec(raw);
    if (!kv) return;
    const path = [...table, ...splitDottedKey(kv[2]!)];
    setOnce(positions, path.join('.'), { line, column: kv[1]!.length + 1 });
    const value = kv[3]!;
    for (const q of ['"""', "'''"] as const) {
      const first = value.indexOf(q);
      if (first >= 0 && value.indexOf(q, first + 3) < 0) inMultiline = q;
    }
  });
  return positions;
}

/** Position of `path`, or of its nearest ancestor that is written in the file. */
export function locateKey(index: Map<string, KeyPosition>, path: KeyPath): KeyPosition | undefined {
  for (let n = path.length; n > 0; n--) {
    const hit = index.get(path.slice(0, n).map(String).join('.'));
    if (hit) return hit;
  }
  return undefined;
}

function splitDottedKey(text: string): string[] {
  const parts: string[] = [];
  const re = /\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*(?:\.|$)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) && m[0].length > 0) parts.push(m[1] ?? m[2] ?? m[3]!);
  return parts;
}

function setOnce(map: Map<string, KeyPosition>, key: string, pos: KeyPosition): void {
  if (!map.has(key)) map.set(key, pos);
}
