/**
 * How deep a frame from the server may nest. JSON.parse takes any depth, but
 * validation, previews and the trace writer recurse: a frame nested
 * thousands of levels deep must become a protocol error, not a stack
 * overflow (docs/reliability.md). The bundled server refuses the same depth.
 */
export const MAX_FRAME_NESTING = 256;

/** True when `value` nests deeper than `limit` arrays/objects; iterative, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
