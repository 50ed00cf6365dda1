/**
 * Characters that change how text reads without being seen: bidirectional
 * embeddings, overrides and isolates (the "Trojan Source" characters),
 * zero-width spaces and joiners' look-alikes, invisible operators, the BOM,
 * soft hyphens, interlinear annotations and tag characters. A trace is
 * untrusted, so each is shown as a visible `[U+XXXX]` escape instead
 * (docs/reliability.md). The zero-width joiner, variation selectors and
 * combining marks stay: emoji and scripts need them, and they cannot reorder
 * or hide text.
 */
const INVISIBLE =
  /[\u00ad\u061c\u115f\u1160\u180e\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;
const ANY = new RegExp(INVISIBLE.source);

function escape(ch: string): string {
  return `[U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`;
}

/** `text` with every invisible formatting character replaced by a visible escape. */
export function revealInvisible(text: string): string {
  return ANY.test(text) ? text.replace(INVISIBLE, escape) : text;
}
