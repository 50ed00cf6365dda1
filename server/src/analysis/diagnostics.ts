/**
 * The stable diagnostic codes, their severities and the wording of each
 * message. Every message says how to fix the problem.
 */
import type { FileProblem, Range, Severity } from './facts';

export const DIAGNOSTIC_SOURCE = 'hud-studio';

export const SEVERITY = {
  'verifier-unknown-template': 'error',
  'verifier-nested': 'error',
  'verifier-on-list': 'error',
  'verifier-on-taskset': 'warning',
  'verifier-not-agentless': 'warning',
  'verifier-field-missing': 'warning',
  'result-missing-score': 'error',
  'task-bad-args': 'error',
  'task-unknown-template': 'warning',
  'task-duplicate-slug': 'warning',
  'taskset-duplicate-slug': 'error',
  'task-file-malformed': 'error',
  'task-file-other-folder': 'warning',
  'task-args-into-varargs': 'error',
  'python-unimportable': 'error',
  'template-not-async-generator': 'error',
  'template-duplicate-id': 'error',
  'template-annotation-unresolved': 'error',
  'template-single-yield': 'warning',
  'task-arg-type': 'warning',
  'grade-not-awaited': 'error',
  'service-access-docker-socket': 'warning',
  'v5-scenario-api': 'error',
  'template-bare-decorator': 'error',
  'hud-unknown-import': 'error',
  'combine-no-positive-weight': 'warning',
  'harbor-invalid-toml': 'error',
  'harbor-schema': 'error',
  'harbor-missing-tests-dockerfile': 'error',
  'harbor-missing-test-sh': 'error',
  'harbor-missing-instruction': 'error',
  'harbor-shared-forgeable': 'info',
  'harbor-artifacts-where-tests-run': 'info',
  'harbor-host-variables-to-agent': 'info',
  'compose-reaches-host': 'warning',
  'golden-row-malformed': 'error',
  'golden-task-unresolved': 'error',
  'harbor-golden-malformed': 'error',
  /** Not HUD rules: they say why a file was left out of the index. */
  'file-too-large': 'info',
  'python-parse-too-slow': 'warning',
} as const satisfies Record<string, Severity>;

export type DiagnosticCode = keyof typeof SEVERITY;

export function problem(code: DiagnosticCode, range: Range, message: string): FileProblem {
  return { code, severity: SEVERITY[code], message, range };
}

export const ZERO_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
