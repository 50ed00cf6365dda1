/**
 * Keys Harbor still accepts under older names (docs/harbor.md): `memory` and
 * `storage` as size strings ("2G", "512M"), and `allow_internet`, which maps
 * onto `network_mode` unless the table sets a policy itself. They are rewritten
 * in place on the parsed TOML before the schema sees it, so the rest of the
 * code knows only the current names.
 */
import type { KeyPath } from './keyLocator';

export interface LegacyKeyIssue {
  path: KeyPath;
  severity: 'error' | 'warning';
  message: string;
}

type Table = Record<string, unknown>;

export function migrateLegacyKeys(doc: unknown): LegacyKeyIssue[] {
  const issues: LegacyKeyIssue[] = [];
  for (const { table, path } of environmentTables(doc)) migrateEnvironment(table, path, issues);
  return issues;
}

/** `[environment]`, `[verifier.environment]` and every `[steps.verifier.environment]`. */
function environmentTables(doc: unknown): { table: Table; path: KeyPath }[] {
  const out: { table: Table; path: KeyPath }[] = [];
  const root = asTable(doc);
  if (!root) return out;
  const env = asTable(root.environment);
  if (env) out.push({ table: env, path: ['environment'] });
  const venv = asTable(asTable(root.verifier)?.environment);
  if (venv) out.push({ table: venv, path: ['verifier', 'environment'] });
  if (Array.isArray(root.steps)) {
    root.steps.forEach((step: unknown, i) => {
      const senv = asTable(asTable(asTable(step)?.verifier)?.environment);
      if (senv) out.push({ table: senv, path: ['steps', i, 'verifier', 'environment'] });
    });
  }
  return out;
}

function migrateEnvironment(t: Table, path: KeyPath, issues: LegacyKeyIssue[]): void {
  for (const [legacy, current] of [
    ['memory', 'memory_mb'],
    ['storage', 'storage_mb'],
  ] as const) {
    if (!(legacy in t)) continue;
    const value = t[legacy];
    delete t[legacy];
    // Harbor reads only size strings here and drops anything else.
    if (typeof value !== 'string') continue;
    const mb = sizeToMb(value);
    if (mb === undefined) {
      issues.push({
        path: [...path, legacy],
        severity: 'error',
        message: `${dotted([...path, legacy])} = ${JSON.stringify(value)} is not a size (fix: write e.g. "2G" or "512M", or use ${current} = 2048)`,
      });
      continue;
    }
    if (current in t && t[current] !== mb) {
      issues.push({
        path: [...path, legacy],
        severity: 'error',
        message: `${dotted([...path, legacy])} = ${JSON.stringify(value)} (${mb} MB) contradicts ${current} = ${String(t[current])} (fix: keep only ${current})`,
      });
      continue;
    }
    t[current] ??= mb;
  }
  if ('allow_internet' in t) {
    const allow = t.allow_internet;
    delete t.allow_internet;
    if (typeof allow !== 'boolean') {
      issues.push({
        path: [...path, 'allow_internet'],
        severity: 'error',
        message: `${dotted([...path, 'allow_internet'])} must be true or false (fix: or use network_mode = "no-network" / "public")`,
      });
    } else if (!('network_mode' in t) && !('allowed_hosts' in t)) {
      t.network_mode = allow ? 'public' : 'no-network';
    }
  }
}

/** Harbor's size strings: a number followed by G, M or K (case-insensitive), in MB, rounded down. */
export function sizeToMb(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)\s*([gmk])\s*$/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2]!.toLowerCase();
  return Math.floor(unit === 'g' ? n * 1024 : unit === 'm' ? n : n / 1024);
}

function asTable(v: unknown): Table | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Table) : undefined;
}

function dotted(path: KeyPath): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}
