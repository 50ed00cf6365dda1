/**
 * The module-level names a compound statement (`if`, `for`, `while`,
 * `try`, `with`, `match`) may bind in its blocks: assignment targets
 * (`a = ...`, `a, b = ...`, `a: int = ...`, `a += ...`), loop targets,
 * `as` names, `del`, and the names of `def` and `class` written in them.
 * Whether a block runs is known only by running the module, so the index
 * treats each such name as bound again there (server/README.md, "Names
 * bound more than once"). The bodies of functions and classes defined in a
 * block bind their own names, not the module's, and are skipped.
 */
import { expressionEnd, scanTo, skipSpaceAndComments, type Span } from './pyScan';

const HEADER = /(?:async[ \t]+)?(?:if|elif|else|while|for|try|except\*?|finally|with|match|case)(?![\w])/y;
const FOR_TARGETS = /(?:async[ \t]+)?for[ \t]+\(?([A-Za-z_][\w \t,]*?)\)?[ \t]+in(?!\w)/y;
const AS_NAME = /\bas[ \t]+([A-Za-z_]\w*)/g;
const DEFINITION = /(?:async[ \t]+)?(?:def|class)[ \t]+([A-Za-z_]\w*)/y;
const ASSIGNED =
  /[ \t]*\(?((?:[A-Za-z_]\w*[ \t]*,[ \t]*)*[A-Za-z_]\w*)[ \t]*,?[ \t]*\)?[ \t]*(?::[^=\n]*)?(?:[-+*/%&|^@]|\/\/|\*\*|>>|<<)?=(?!=)/y;
const DELETED = /del[ \t]+([A-Za-z_][\w \t,]*)$/;

export function namesAssignedIn(text: string, st: Span): string[] {
  const names: string[] = [];
  const add = (list: string) => {
    for (const n of list.split(',')) {
      const name = n.trim();
      if (/^[A-Za-z_]\w*$/.test(name) && !names.includes(name)) names.push(name);
    }
  };
  /** Column of a `def` or `class` whose body is being skipped; lines indented deeper belong to it. */
  let skipDeeperThan = -1;
  for (let at = skipSpaceAndComments(text, st.start, st.end); at < st.end;) {
    const end = Math.max(at + 1, expressionEnd(text, at, st.end));
    const column = at - text.lastIndexOf('\n', at - 1) - 1;
    if (skipDeeperThan >= 0 && column > skipDeeperThan) {
      at = next(text, end, st.end);
      continue;
    }
    skipDeeperThan = -1;
    DEFINITION.lastIndex = at;
    const def = DEFINITION.exec(text);
    if (def) {
      add(def[1]!);
      skipDeeperThan = column;
    } else piece(text, at, end, add);
    at = next(text, end, st.end);
  }
  return names;
}

/** One logical line [at, end): a block's header, maybe with a simple statement after its colon, or a statement. */
function piece(text: string, at: number, end: number, add: (names: string) => void): void {
  HEADER.lastIndex = at;
  if (HEADER.exec(text)) {
    FOR_TARGETS.lastIndex = at;
    const loop = FOR_TARGETS.exec(text);
    if (loop) add(loop[1]!);
    const colon = scanTo(text, at, end, ':');
    const header = text.slice(at, colon);
    for (let m = AS_NAME.exec(header); m; m = AS_NAME.exec(header)) add(m[1]!);
    // `if x: a = 1` on one line
    if (colon < end) simple(text, skipSpaceAndComments(text, colon + 1, end), end, add);
    return;
  }
  simple(text, at, end, add);
}

/** A simple statement at `at`: its assignment targets (`a = b = x` binds both), or what `del` removes. */
function simple(text: string, at: number, end: number, add: (names: string) => void): void {
  const deleted = DELETED.exec(text.slice(at, end));
  if (deleted) {
    add(deleted[1]!);
    return;
  }
  for (let from = at; from < end;) {
    ASSIGNED.lastIndex = from;
    const m = ASSIGNED.exec(text);
    if (!m) return;
    add(m[1]!);
    from += m[0].length;
  }
}

function next(text: string, end: number, limit: number): number {
  let at = skipSpaceAndComments(text, end, limit);
  if (text.charCodeAt(at) === 59 /* ; */) at = skipSpaceAndComments(text, at + 1, limit);
  return at;
}
