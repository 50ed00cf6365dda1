/**
 * smol-toml reports an unterminated one-line string at the start of the
 * enclosing structure (often line 1), far from the typo. This scanner finds the
 * first line whose "..." or '...' string never closes, so the error can point
 * at it instead.
 */
import type { KeyPosition } from './keyLocator';

export function findUnterminatedString(source: string): KeyPosition | undefined {
  let multiline: '"""' | "'''" | null = null;
  const lines = source.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    let j = 0;
    if (multiline) {
      const end = text.indexOf(multiline);
      if (end < 0) continue;
      j = end + 3;
      multiline = null;
    }
    while (j < text.length) {
      const ch = text[j]!;
      if (ch === '#') break;
      if (text.startsWith('"""', j) || text.startsWith("'''", j)) {
        const q = text.slice(j, j + 3) as '"""' | "'''";
        const end = text.indexOf(q, j + 3);
        if (end < 0) {
          multiline = q;
          break;
        }
        j = end + 3;
        continue;
      }
      if (ch === '"' || ch === "'") {
        let k = j + 1;
        while (k < text.length && text[k] !== ch) k += ch === '"' && text[k] === '\\' ? 2 : 1;
        if (k >= text.length) return { line: i + 1, column: j + 1 };
        j = k + 1;
        continue;
      }
      j++;
    }
  }
  return undefined;
}
