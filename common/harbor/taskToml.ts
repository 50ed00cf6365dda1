/**
 * Parses and validates a Harbor `task.toml` from its text, without touching
 * the file system, so the language server can run it on every keystroke and
 * the engine can run it before a trial. Every problem comes back as an issue
 * with a line, a column, the key and the fix; nothing here throws.
 */
import { parse, TomlError } from 'smol-toml';
import type { z } from 'zod';
import { findUnterminatedString } from './unterminatedString';
import { indexKeys, locateKey, type KeyPath } from './keyLocator';
import { migrateLegacyKeys } from './legacyKeys';
import { type HarborTaskConfig, NETWORK_MODES, TaskTomlDocument, resolveVerifier } from './schema';

export type HarborIssueCode =
  'harbor-invalid-toml' | 'harbor-schema' | 'harbor-missing-file' | 'harbor-unknown-key' | 'harbor-unsupported';

export interface HarborTomlIssue {
  code: HarborIssueCode;
  severity: 'error' | 'warning';
  /** Names the key and says how to fix it. */
  message: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** Dotted key path (`verifier.timeout_sec`, `artifacts.1`); empty for syntax errors. */
  key: string;
}

export type TaskTomlParseResult =
  | { ok: true; config: HarborTaskConfig; warnings: HarborTomlIssue[] }
  | { ok: false; errors: HarborTomlIssue[]; warnings: HarborTomlIssue[] };

export function parseTaskToml(source: string): TaskTomlParseResult {
  let doc: unknown;
  try {
    doc = parse(source);
  } catch (err) {
    if (err instanceof TomlError) {
      const first = err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
      const open = findUnterminatedString(source);
      // An unclosed string before the reported spot is the likelier culprit.
      const useOpen = open !== undefined && (open.line <= err.line || err.line === 1);
      const pos = useOpen ? open : { line: err.line, column: err.column };
      return {
        ok: false,
        warnings: [],
        errors: [
          {
            code: 'harbor-invalid-toml',
            severity: 'error',
            message: useOpen
              ? 'TOML syntax error: this string is never closed (fix: add the closing quote on the same line)'
              : `TOML syntax error: ${first} (fix the TOML syntax at this position)`,
            line: pos.line,
            column: pos.column,
            key: '',
          },
        ],
      };
    }
    throw err;
  }

  const keys = indexKeys(source);
  const at = (
    path: KeyPath,
    code: HarborIssueCode,
    severity: 'error' | 'warning',
    message: string,
  ): HarborTomlIssue => {
    const pos = locateKey(keys, path) ?? { line: 1, column: 1 };
    return { code, severity, message, line: pos.line, column: pos.column, key: formatKeyPath(path) };
  };

  const warnings: HarborTomlIssue[] = [];
  const legacyErrors: HarborTomlIssue[] = [];
  for (const m of migrateLegacyKeys(doc)) {
    (m.severity === 'error' ? legacyErrors : warnings).push(at(m.path, 'harbor-schema', m.severity, m.message));
  }
  if (legacyErrors.length > 0) return { ok: false, errors: legacyErrors, warnings };
  let parsed = TaskTomlDocument.safeParse(doc, { reportInput: true });
  // Unknown keys are warnings (a newer Harbor may add keys); they are dropped and the rest validated.
  if (!parsed.success) {
    const unknown = parsed.error.issues.filter((i) => i.code === 'unrecognized_keys');
    if (unknown.length > 0) {
      for (const issue of unknown) {
        for (const k of issue.keys) {
          const path = [...issue.path.map(keyPart), k];
          warnings.push(
            at(
              path,
              'harbor-unknown-key',
              'warning',
              `unknown key "${formatKeyPath(path)}" is ignored (fix: remove it or correct its spelling)`,
            ),
          );
          deleteAt(doc, path);
        }
      }
      parsed = TaskTomlDocument.safeParse(doc, { reportInput: true });
    }
  }
  if (!parsed.success) {
    return {
      ok: false,
      warnings,
      errors: parsed.error.issues.map((i) => at(i.path.map(keyPart), 'harbor-schema', 'error', describeIssue(i))),
    };
  }

  const d = parsed.data;
  const errors: HarborTomlIssue[] = [];
  const verifierTables: { path: KeyPath; v: (typeof d)['verifier'] }[] = [
    { path: ['verifier'], v: d.verifier },
    ...(d.steps ?? []).map((s, i) => ({ path: ['steps', i, 'verifier'] as KeyPath, v: s.verifier })),
  ];
  for (const { path, v } of verifierTables) {
    if (v.environment_mode === 'shared' && v.environment) {
      errors.push(
        at(
          [...path, 'environment'],
          'harbor-schema',
          'error',
          `${formatKeyPath(path)}.environment_mode = "shared" cannot have a [${formatKeyPath(path)}.environment] table: a shared verifier runs in the agent's container (fix: remove the table, or set environment_mode = "separate")`,
        ),
      );
    }
  }
  // Harbor refuses allowed_hosts unless the same table's policy is an allowlist.
  const policies: { path: KeyPath; mode: string | undefined; hosts: string[] | undefined }[] = [
    { path: ['environment'], mode: d.environment.network_mode, hosts: d.environment.allowed_hosts },
    { path: ['agent'], mode: d.agent.network_mode, hosts: d.agent.allowed_hosts },
    { path: ['verifier'], mode: d.verifier.network_mode, hosts: d.verifier.allowed_hosts },
    ...(d.verifier.environment
      ? [
          {
            path: ['verifier', 'environment'],
            mode: d.verifier.environment.network_mode,
            hosts: d.verifier.environment.allowed_hosts,
          },
        ]
      : []),
  ];
  for (const p of policies) {
    if (p.hosts && p.hosts.length > 0 && p.mode !== 'allowlist') {
      errors.push(
        at(
          [...p.path, 'allowed_hosts'],
          'harbor-schema',
          'error',
          `${formatKeyPath([...p.path, 'allowed_hosts'])} is only valid with network_mode = "allowlist" (fix: set network_mode = "allowlist" in the same table, or remove allowed_hosts)`,
        ),
      );
    }
  }
  const names = new Set<string>();
  (d.steps ?? []).forEach((s, i) => {
    if (names.has(s.name))
      errors.push(
        at(
          ['steps', i, 'name'],
          'harbor-schema',
          'error',
          `steps[${i}].name "${s.name}" is used twice (fix: give every step its own name)`,
        ),
      );
    names.add(s.name);
  });
  if (errors.length > 0) return { ok: false, errors, warnings };

  if (d.environment.os === 'windows') {
    warnings.push(
      at(
        ['environment', 'os'],
        'harbor-unsupported',
        'warning',
        'environment.os = "windows": Windows containers are not supported on Linux, so HUD Studio cannot run this task here (fix: run it with Harbor on a Windows Docker host)',
      ),
    );
  }

  const verifier = resolveVerifier(d.verifier, d.environment);
  return {
    ok: true,
    warnings,
    config: {
      schemaVersion: d.schema_version ?? d.version,
      source: d.source,
      artifacts: d.artifacts,
      task: d.task,
      metadata: d.metadata,
      agent: d.agent,
      verifier,
      environment: d.environment,
      solution: d.solution ?? { env: {} },
      steps: d.steps?.map((s) => ({
        name: s.name,
        agent: s.agent,
        verifier: resolveVerifier(s.verifier, d.environment, {
          mode: verifier.environmentMode,
          environment: d.verifier.environment,
        }),
        minReward: s.min_reward,
        healthcheck: s.healthcheck,
        artifacts: s.artifacts,
      })),
      multiStepRewardStrategy: d.multi_step_reward_strategy ?? 'mean',
    },
  };
}

/** `verifier.collect[1].command`. */
export function formatKeyPath(path: KeyPath): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

function keyPart(p: PropertyKey): string | number {
  return typeof p === 'number' ? p : String(p);
}

function deleteAt(doc: unknown, path: (string | number)[]): void {
  let node: unknown = doc;
  for (const part of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return;
    node = (node as Record<string | number, unknown>)[part];
  }
  if (node !== null && typeof node === 'object')
    delete (node as Record<string | number, unknown>)[path[path.length - 1]!];
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = formatKeyPath(issue.path.map(keyPart)) || '(document)';
  switch (issue.code) {
    case 'invalid_type': {
      const got = describeValue((issue as { input?: unknown }).input);
      if (got === 'nothing') return `${key} is required (fix: add ${key} as a ${issue.expected})`;
      return `${key} must be a ${issue.expected}, not ${got} (fix: write ${key} as a ${issue.expected})`;
    }
    case 'invalid_value':
      if (issue.path[issue.path.length - 1] === 'network_mode') {
        return `${key}: ${issue.message} (fix: use one of ${NETWORK_MODES.join(', ')})`;
      }
      return `${key} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')} (fix: use one of these values)`;
    case 'too_small':
      return `${key} is too small: ${issue.message} (fix: use a larger value)`;
    case 'invalid_union':
      return `${key} has the wrong shape (fix: ${unionHint(key)})`;
    default:
      return `${key}: ${issue.message} (fix: correct ${key})`;
  }
}

function unionHint(key: string): string {
  if (key.startsWith('artifacts'))
    return 'each artifact is an absolute path "/path" or a table {source = "/path", destination, exclude, service}';
  if (key.endsWith('healthcheck'))
    return 'healthcheck is a command string or a table {command, interval_sec, timeout_sec, retries, start_period_sec, start_interval_sec}';
  if (key.endsWith('min_reward')) return 'min_reward is a number or a table of numbers per reward key';
  if (key.endsWith('user')) return 'user is a name or a numeric uid';
  if (key.startsWith('task.authors')) return 'each author is a string or a table {name, email}';
  return 'see the Harbor task.toml reference for this key';
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'a table';
  return `the ${typeof v} ${JSON.stringify(v)}`;
}
