/**
 * `check`'s golden-data finding (docs/security.md): a verifier whose
 * literal arguments (the expected values, usually) are written in a file
 * the actor's substrate receives. Every file of the environment's folder is
 * copied there, except what sits under `verifier-only/`; an agent that can
 * read its copy (a root agent, the local runtime) learns the answer.
 */
import type { IndexedTask, Range } from '../../../common/lspMessages';
import { VERIFIER_ONLY_DIR } from '../engine/providers/verifierOnly';

export const GOLDEN_CODE = 'verifier-args-in-actor-files';

/** A string, number or boolean literal among a call's arguments (Python) or a non-empty `args` (task files). */
const PY_LITERAL_ARG = /\(([^]*)\)\s*$/;
const LITERAL = /(["'])|(^|[^\w.])\d|\b(True|False)\b/;
const JSON_ARGS = /"args"\s*:\s*\{\s*"/;

/** A finding of `check` at a place in the file it is about; the caller gives it a code and a severity. */
export interface PlacedFinding {
  range: Range;
  message: string;
}

export function goldenExposure(
  relPath: string,
  uri: string,
  text: string,
  tasks: readonly IndexedTask[],
): PlacedFinding[] {
  if (relPath.split('/').includes(VERIFIER_ONLY_DIR)) return [];
  const lines = text.split('\n');
  const seen = new Set<string>();
  const out: PlacedFinding[] = [];
  for (const task of tasks) {
    const v = task.verifier;
    if (!v || v.uri !== uri) continue;
    const key = `${v.range.start.line}:${v.range.start.character}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const written = slice(lines, v.range);
    const args = PY_LITERAL_ARG.exec(written)?.[1];
    const literal = relPath.endsWith('.py') ? args !== undefined && LITERAL.test(args) : JSON_ARGS.test(written);
    if (!literal) continue;
    out.push({
      range: v.range,
      message: `the literal arguments of verifier ${v.env}/${v.templateId} are written in ${relPath}, which the actor's substrate receives: an agent that can read its copy learns the expected values (fix: have the verifier read them from a file under ${VERIFIER_ONLY_DIR}/ beside env.py, which only verifier substrates receive, or from the verifier environment's secrets)`,
    });
  }
  return out;
}

function slice(lines: readonly string[], r: Range): string {
  if (r.start.line === r.end.line) return (lines[r.start.line] ?? '').slice(r.start.character, r.end.character);
  const parts = [(lines[r.start.line] ?? '').slice(r.start.character)];
  for (let i = r.start.line + 1; i < r.end.line; i++) parts.push(lines[i] ?? '');
  parts.push((lines[r.end.line] ?? '').slice(0, r.end.character));
  return parts.join('\n');
}
