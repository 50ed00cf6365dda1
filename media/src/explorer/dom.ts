/**
 * The only way the explorer builds DOM. Text always becomes Text nodes (never
 * markup), attributes that could run code (`on*`) or style the page around
 * the CSP (`style`) are refused, and link-like attributes are never set from
 * data. This is what makes trace content inert. Invisible formatting
 * characters (bidi overrides, zero-width spaces) are shown as escapes.
 */
import { revealInvisible } from './invisible';

export type Child = Node | string | number | null | undefined | false | Child[];

export interface Props {
  class?: string | undefined;
  title?: string | undefined;
  /** Plain attributes (aria-*, role, type, colspan, ...). */
  attrs?: Record<string, string | undefined> | undefined;
  data?: Record<string, string> | undefined;
  on?: { [K in keyof HTMLElementEventMap]?: (ev: HTMLElementEventMap[K]) => void } | undefined;
}

const FORBIDDEN_ATTR = /^(on|style$|href$|src$|srcdoc$|action$|formaction$|xlink:)/i;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props) {
    if (props.class) el.className = props.class;
    if (props.title !== undefined) el.title = revealInvisible(props.title);
    if (props.attrs) {
      for (const [k, v] of Object.entries(props.attrs)) {
        if (v === undefined) continue;
        if (FORBIDDEN_ATTR.test(k)) throw new Error(`dom: attribute "${k}" is not allowed`);
        el.setAttribute(k, v);
      }
    }
    if (props.data) for (const [k, v] of Object.entries(props.data)) el.dataset[k] = v;
    if (props.on) {
      for (const [type, fn] of Object.entries(props.on)) el.addEventListener(type, fn as EventListener);
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else if (typeof c === 'string') parent.appendChild(document.createTextNode(revealInvisible(c)));
    else if (typeof c === 'number') parent.appendChild(document.createTextNode(String(c)));
    else parent.appendChild(c);
  }
}

/** Replaces all children of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.textContent = '';
  append(parent, children);
}
