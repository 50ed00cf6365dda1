/**
 * Long tool output is cut in the middle: the head shows what a command began
 * with, the tail how it ended (errors, exit summaries), and the marker tells
 * the model that something was left out and how much.
 */
export function cutMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = Math.max(0, limit);
  const head = Math.ceil(keep / 2);
  const tail = keep - head;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n[... ${cut} characters cut ...]\n${tail ? text.slice(text.length - tail) : ''}`;
}
