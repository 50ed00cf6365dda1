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
import { type HarborTaskConfig, NETWORK_MODES, TaskTomlDocument } from './schema';

export type HarborIssueCode = 'harbor-invalid-toml' | 'harbor-schema' | 'harbor-missing-file' | 'harbor-unknown-key';

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
  const at = (path: KeyPath, code: HarborIssueCode, severity: 'error' | 'warning', message: string): HarborTomlIssue => {
    const pos = locateKey(keys, path) ?? { line: 1, column: 1 };
    return { code, severity, message, line: pos.line, column: pos.column, key: formatKeyPath(path) };
  };

  const warnings: HarborTomlIssue[] = [];
  let parsed = TaskTomlDocument.safeParse(doc, { reportInput: true });
  // Unknown keys are warnings (a newer Harbor may add keys); they are dropped and the rest validated.
  if (!parsed.success) {
    const unknown = parsed.error.issues.filter((i) => i.code === 'unrecognized_keys');
    if (unknown.length > 0) {
      for (const issue of unknown) {
        for (const k of issue.keys) {
          const path = [...issue.path.map(keyPart), k];
          warnings.push(at(path, 'harbor-unknown-key', 'warning', `unknown key "${formatKeyPath(path)}" is ignored (fix: remove it or correct its spelling)`));
          deleteAt(doc, path);
        }
      }
      parsed = TaskTomlDocument.safeParse(doc, { reportInput: true });
    }
  }
  if (!parsed.success) {
    return { ok: false, warnings, errors: parsed.error.issues.map((i) => at(i.path.map(keyPart), 'harbor-schema', 'error', describeIssue(i))) };
  }

  const d = parsed.data;
  const errors: HarborTomlIssue[] = [];
  const explicitMode = d.verifier.environment_mode;
  if (explicitMode === 'shared' && d.verifier.environment) {
    errors.push(
      at(['verifier', 'environment'], 'harbor-schema', 'error',
        'verifier.environment_mode = "shared" cannot have a [verifier.environment] table: a shared verifier runs in the agent\'s container (fix: remove [verifier.environment], or set environment_mode = "separate")'),
    );
  }
  if (errors.length > 0) return { ok: false, errors, warnings };

  for (const [path, env] of [[['environment'], d.environment], [['verifier', 'environment'], d.verifier.environment]] as const) {
    if (env && env.allowed_hosts.length > 0 && env.network_mode !== 'allowlist') {
      warnings.push(at([...path, 'allowed_hosts'], 'harbor-schema', 'warning',
        `${formatKeyPath([...path, 'allowed_hosts'])} is ignored because network_mode is "${env.network_mode}" (fix: set network_mode = "allowlist" or remove allowed_hosts)`));
    }
  }

  const environmentMode = explicitMode ?? (d.verifier.environment ? 'separate' : 'shared');
  return {
    ok: true,
    warnings,
    config: {
      schemaVersion: d.schema_version ?? d.version,
      artifacts: d.artifacts,
      task: d.task,
      metadata: d.metadata,
      agent: d.agent,
      verifier: {
        timeoutSec: d.verifier.timeout_sec,
        env: d.verifier.env,
        user: d.verifier.user,
        environmentMode,
        environmentModeImplied: explicitMode === undefined && environmentMode === 'separate',
        collect: d.verifier.collect,
        environment: environmentMode === 'separate' ? (d.verifier.environment ?? TaskTomlDocument.shape.environment.parse(undefined)) : undefined,
      },
      environment: d.environment,
      solution: d.solution ?? { env: {} },
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
  if (node !== null && typeof node === 'object') delete (node as Record<string | number, unknown>)[path[path.length - 1]!];
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
  if (key.startsWith('artifacts')) return 'each artifact is an absolute path "/path" or a table {source = "/path", destination, exclude, service}';
  if (key.endsWith('healthcheck')) return 'healthcheck is a command string or a table {command, interval_sec, timeout_sec, retries, start_period_sec}';
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
