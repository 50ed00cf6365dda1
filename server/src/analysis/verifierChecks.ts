/**
 * Checks a task's verifier against the task's own template: agent-less first
 * yield and the keys it reads from the actor's result. A verifier in another
 * environment is the recommended pattern, so that is said in the hover and
 * the CodeLens, not as a diagnostic; only what it reads and the actor's result
 * does not carry is a warning (docs/hud-protocol.md, the verifier phase).
 */
import type { FileProblem, Range, TemplateFacts } from './facts';
import { problem } from './diagnostics';
import { WIRE_RESULT_KEYS } from './link';

export interface TemplateSide {
  template: TemplateFacts;
  env: string;
  /** Workspace-relative path, for messages. */
  rel: string;
  /** The template's file, for quick fixes that edit it. */
  uri: string;
}

export function checkVerifier(actor: TemplateSide | undefined, verifier: TemplateSide, range: Range): FileProblem[] {
  const out: FileProblem[] = [];
  const v = verifier.template;
  const vName = `${verifier.env}/${v.id}`;
  if (v.broken) return out;
  if (v.firstYield && v.firstYield.kind !== 'empty') {
    const found = problem(
      'verifier-not-agentless',
      range,
      `verifier ${vName} yields a prompt first, but a verifier runs without an agent, so nobody answers it (fix: make its first yield empty: \`result = yield ""\` in ${verifier.rel}:${(v.firstYieldRange?.start.line ?? v.range.start.line) + 1})`,
    );
    if (v.firstYieldRange) {
      found.fix = {
        kind: 'replace',
        uri: verifier.uri,
        range: v.firstYieldRange,
        newText: 'yield ""',
        title: `Make ${vName}'s first yield empty`,
      };
    }
    out.push(found);
  }
  if (!actor || actor.template.broken) return out;
  const a = actor.template;
  const keys = a.result?.keys;
  if (keys) {
    const yielded = new Set(keys);
    const reported = new Set<string>();
    for (const read of v.readsKeys) {
      if (yielded.has(read.key) || WIRE_RESULT_KEYS.has(read.key) || reported.has(read.key)) continue;
      reported.add(read.key);
      const at = a.result ? `${actor.rel}:${a.result.range.start.line + 1}` : actor.rel;
      out.push(
        problem(
          'verifier-field-missing',
          range,
          `verifier ${vName} reads "${read.key}" from the actor's result, but ${actor.env}/${a.id} never yields it (its result has ${keys.map((k) => `"${k}"`).join(', ') || 'no keys'}) (fix: add "${read.key}": ... to the result dict at ${at}, or stop reading it)`,
        ),
      );
    }
  }
  return out;
}
