/**
 * Remembers which collapsible parts a person opened, so a re-render (live
 * updates re-render the page) does not snap them shut.
 */
import { h, type Child } from '../dom';

export class OpenState {
  private readonly open: Set<string>;

  constructor(keys: Iterable<string> = []) {
    this.open = new Set(keys);
  }

  /** What is open, for the page's saved state. */
  keys(): string[] {
    return [...this.open];
  }

  isOpen(key: string): boolean {
    return this.open.has(key);
  }

  set(key: string, isOpen: boolean): void {
    if (isOpen) this.open.add(key);
    else this.open.delete(key);
  }

  toggle(key: string): boolean {
    this.set(key, !this.open.has(key));
    return this.open.has(key);
  }

  /** A <details> whose open state survives re-renders. */
  details(key: string, summary: HTMLElement, ...body: Child[]): HTMLDetailsElement {
    const d = h('details', { data: { key } }, summary, ...body);
    d.open = this.open.has(key);
    d.addEventListener('toggle', () => this.set(key, d.open));
    return d;
  }
}
