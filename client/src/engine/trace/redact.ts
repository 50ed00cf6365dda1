/**
 * Declared secrets never reach a trace (docs/security.md): before a trace is
 * written (and as each log line goes out), every occurrence of a secret's
 * value in any string is replaced by `[redacted NAME]`. Values shorter than
 * MIN_SECRET_CHARS are left alone: redacting them would mangle ordinary text
 * and hide nothing worth hiding.
 */
export const MIN_SECRET_CHARS = 4;

export class Redactor {
  private readonly secrets: { name: string; value: string }[];

  /** `declared`: name -> value, from every environment's credentials and the verifier's secrets. */
  constructor(declared: Record<string, string>[]) {
    const seen = new Map<string, string>();
    for (const group of declared) {
      for (const [name, value] of Object.entries(group)) {
        if (value.length >= MIN_SECRET_CHARS && !seen.has(value)) seen.set(value, name);
      }
    }
    // Longest first, so that a secret containing another is replaced whole.
    this.secrets = [...seen].map(([value, name]) => ({ name, value })).sort((a, b) => b.value.length - a.value.length);
  }

  get empty(): boolean {
    return this.secrets.length === 0;
  }

  text(s: string): string {
    let out = s;
    for (const { name, value } of this.secrets) {
      if (out.includes(value)) out = out.split(value).join(`[redacted ${name}]`);
    }
    return out;
  }

  /** A copy of `value` with every string (keys included) redacted. */
  deep<T>(value: T): T {
    if (this.empty) return value;
    return this.walk(value) as T;
  }

  private walk(v: unknown): unknown {
    if (typeof v === 'string') return this.text(v);
    if (Array.isArray(v)) return v.map((x) => this.walk(x));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[this.text(k)] = this.walk(x);
      return out;
    }
    return v;
  }
}
