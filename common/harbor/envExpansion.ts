/**
 * `${VAR}` / `${VAR:-default}` expansion for the `env` tables of task.toml.
 * An unset variable without a default is reported rather than silently
 * becoming empty: a credential that quietly vanished is hard to debug.
 */

export interface ExpansionResult {
  env: Record<string, string>;
  /** Variables referenced without a default and not set. */
  missing: string[];
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export function expandEnvValue(
  value: string,
  vars: Readonly<Record<string, string | undefined>>,
  missing?: string[],
): string {
  return value.replace(REFERENCE, (_all, name: string, fallback: string | undefined) => {
    const set = vars[name];
    // `:-` means "unset or empty", as in POSIX shells.
    if (set !== undefined && set !== '') return set;
    if (fallback !== undefined) return fallback;
    if (set === undefined) missing?.push(name);
    return '';
  });
}

export function expandEnvTable(
  table: Readonly<Record<string, string>>,
  vars: Readonly<Record<string, string | undefined>>,
): ExpansionResult {
  const missing: string[] = [];
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(table)) env[key] = expandEnvValue(value, vars, missing);
  return { env, missing: [...new Set(missing)] };
}

/** Names referenced by `${...}` in a table (for diagnostics without a host environment). */
export function referencedVariables(table: Readonly<Record<string, string>>): string[] {
  const names = new Set<string>();
  for (const value of Object.values(table)) for (const m of value.matchAll(REFERENCE)) names.add(m[1]!);
  return [...names];
}
