/**
 * A line diff for comparing two answers: longest common subsequence over
 * lines after trimming the common head and tail. Answers are short, so the
 * quadratic table is fine; past {@link MAX_CELLS} it degrades to "all lines
 * removed, all added" rather than freezing the page. Pure (no DOM).
 */

export type DiffOp = { kind: 'same' | 'del' | 'add'; text: string; left?: number; right?: number };

export const MAX_CELLS = 4_000_000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `left` and `right` line numbers in the ops are 1-based. */
export function diffLines(a: string[], b: string[]): DiffOp[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const ops: DiffOp[] = [];
  for (let i = 0; i < head; i++) ops.push({ kind: 'same', text: a[i] as string, left: i + 1, right: i + 1 });
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  ops.push(...middle(am, bm, head));
  for (let k = tail; k > 0; k--) {
    ops.push({ kind: 'same', text: a[a.length - k] as string, left: a.length - k + 1, right: b.length - k + 1 });
  }
  return ops;
}

function middle(a: string[], b: string[], offset: number): DiffOp[] {
  const n = a.length;
  const m = b.length;
  const del = (i: number): DiffOp => ({ kind: 'del', text: a[i] as string, left: offset + i + 1 });
  const add = (j: number): DiffOp => ({ kind: 'add', text: b[j] as string, right: offset + j + 1 });
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return [...a.map((_, i) => del(i)), ...b.map((_, j) => add(j))];
  // lcs[i][j] = LCS length of a[i..] and b[j..], flattened row-major.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * w + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
    }
  }
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push({ kind: 'same', text: a[i] as string, left: offset + i + 1, right: offset + j + 1 });
      i++;
      j++;
    } else if ((lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number)) ops.push(del(i++));
    else ops.push(add(j++));
  }
  while (i < n) ops.push(del(i++));
  while (j < m) ops.push(add(j++));
  return ops;
}
