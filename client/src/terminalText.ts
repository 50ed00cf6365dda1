/**
 * Text that others wrote (an agent's output, a server's log, an error that
 * quotes them) on its way to a terminal: the CLI's human output and the
 * Testing view's output pane, which is a terminal too. A terminal acts on
 * control characters instead of showing them, so an agent could move the
 * cursor, rewrite or hide lines, set the title or plant links, and make a
 * person (or a script reading the output) see a reward it did not get
 * (docs/security.md). Every C0 and C1 control character but tab and newline
 * is shown as `\xNN`, and each line after the first starts with `indent`, so
 * that no text of theirs begins a line of ours.
 */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

export function forTerminal(text: string, indent = '  '): string {
  return text
    .replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(/\n/g, `\n${indent}`);
}
