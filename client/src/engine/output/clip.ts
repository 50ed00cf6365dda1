/**
 * Head and tail of a long text with a marked cut, for what a trace keeps of
 * output whose whole copy lives elsewhere (docs/reliability.md).
 */
export const CLIP_MARK = '[hud-studio: cut';

export function clipMiddle(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const half = Math.max(1, Math.floor(maxChars / 2));
  const cut = text.length - 2 * half;
  return `${text.slice(0, half)}\n${CLIP_MARK} ${cut} characters]\n${text.slice(text.length - half)}`;
}

/** What an agent step in the trace keeps of a command's stdout or stderr. */
export const STEP_OUTPUT_CHARS = 64 * 1024;
