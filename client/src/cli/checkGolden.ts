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

export interface GoldenFinding {
  range: Range;
  message: string;
}

export function goldenExposure(
  relPath: string,
  uri: string,
  text: string,
  tasks: readonly IndexedTask[],
): GoldenFinding[] {
  if (relPath.split('/').includes(VERIFIER_ONLY_DIR)) return [];
  const lines = text.split('\n');
  const seen = new Set<string>();
  const out: GoldenFinding[] = [];
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

export const ROOT_AGENT_CODE = 'root-agent-forgeable';

/** `LABEL dev.hud-studio.agent-user=root` (or `"root"`, or `0`) in a Dockerfile. */
const ROOT_AGENT_LABEL_LINE = /^\s*LABEL\s[^\n]*\bdev\.hud-studio\.agent-user\s*=\s*["']?(root|0)["']?(\s|$)/im;

/**
 * Tasks of an environment whose image asks for a root agent and whose
 * reward comes from the actor's own substrate (no verifier, or one in the
 * same environment): the agent could write that reward itself.
 */
export function rootAgentFindings(dockerfile: string | undefined, tasks: readonly IndexedTask[]): GoldenFinding[] {
  if (dockerfile === undefined || !ROOT_AGENT_LABEL_LINE.test(dockerfile)) return [];
  return tasks
    .filter((t) => t.kind === 'hud' && (!t.verifier || t.verifier.sameEnvironment))
    .map((t) => ({
      range: t.range,
      message: `task ${t.label} runs a root agent (the Dockerfile beside it sets dev.hud-studio.agent-user=root) and its reward comes from the actor's own substrate, so the agent could forge it (fix: give it a verifier in an environment of its own: task.verifier = other_env.template(...))`,
    }));
}
