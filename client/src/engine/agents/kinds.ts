/**
 * The agents the command line can name, in one place: usage texts, the
 * unknown-agent error and the "no way to answer" check all read this list.
 * (The editor adds `ask`, a person answering in a prompt.)
 */
export const CLI_AGENTS = [
  { kind: 'fixed', what: 'answers --answer TEXT' },
  { kind: 'command', what: 'runs --command CMD in the actor substrate; its stdout is the answer' },
  { kind: 'nop', what: 'does nothing and answers nothing (a sound task scores 0)' },
  { kind: 'llm', what: 'a model with tools acts on the task (--model PROVIDER/MODEL, docs/models.md)' },
  { kind: 'oracle', what: 'Harbor tasks: runs solution/solve.sh' },
] as const;

export type CliAgentKind = (typeof CLI_AGENTS)[number]['kind'];

/** `fixed|command|nop|oracle` */
export const CLI_AGENT_NAMES = CLI_AGENTS.map((a) => a.kind).join('|');

/** `fixed, command, nop or oracle` */
export const CLI_AGENT_LIST = `${CLI_AGENTS.slice(0, -1)
  .map((a) => a.kind)
  .join(', ')} or ${CLI_AGENTS[CLI_AGENTS.length - 1]!.kind}`;

export interface AnswerSource {
  agent?: string | undefined;
  answer?: string | undefined;
  command?: string | undefined;
  /** `--model` (repeatable): implies the llm agent. */
  model?: readonly string[] | undefined;
}

/** True when nothing was chosen that can produce an answer (the agent would default to nop). */
export function choosesNoAgent(c: AnswerSource): boolean {
  return c.agent === undefined && c.answer === undefined && c.command === undefined && !c.model?.length;
}
