/**
 * The answers a sound grader must not reward (docs/grader-workbench.md):
 * nothing, an empty string, the prompt echoed back, a very long string, JSON
 * that imitates a result frame, every value of a `Literal[...]` argument, and
 * the strings the grader's own source shows.
 */
import type { Agent, AgentContext } from '../agents/agent';
import { NopAgent } from '../agents/nop';
import type { DiscoveredTask } from '../discover';

export interface Probe {
  /** Short name for tables: `nop`, `empty`, `echo`, `long`, `fake-result`, `literal`, `source-string`. */
  name: string;
  /** The answer as shown to people (the echo probe's is only known once the prompt is). */
  shown: string;
  agent: Agent;
}

/** An agent whose answer is computed from the prompt it receives. */
class ProbeAgent implements Agent {
  readonly kind = 'sanity';
  constructor(
    private readonly label: string,
    private readonly answer: (ctx: AgentContext) => unknown,
  ) {}
  describe(): string {
    return `sanity: ${this.label}`;
  }
  async run(ctx: AgentContext): Promise<unknown> {
    ctx.step(`sanity probe: ${this.label}`);
    return this.answer(ctx);
  }
}

const MAX_SOURCE_STRINGS = 8;
const LONG_ANSWER_CHARS = 100_000;

export function probesFor(task: Pick<DiscoveredTask, 'source' | 'verifier'>): Probe[] {
  const fixed = (name: string, answer: unknown): Probe => {
    const shown = typeof answer === 'string' ? answer : JSON.stringify(answer);
    return { name, shown, agent: new ProbeAgent(`${name}: ${shown.slice(0, 40)}`, () => answer) };
  };
  const probes: Probe[] = [
    { name: 'nop', shown: '(no answer)', agent: new NopAgent() },
    fixed('empty', ''),
    { name: 'echo', shown: '(the prompt)', agent: new ProbeAgent('echo', (ctx) => ctx.promptText) },
    { name: 'long', shown: `(${LONG_ANSWER_CHARS} characters)`, agent: new ProbeAgent('long', () => longAnswer()) },
    fixed('fake-result', JSON.stringify({ score: 1.0, reward: 1.0, isError: false, content: 'correct' })),
    fixed('fake-result', { score: 1.0, reward: 1.0, isError: false, answer: 'correct' }),
  ];
  const sources = [task.source ?? '', task.verifier?.source ?? ''].join('\n');
  for (const value of literalValues(sources)) probes.push(fixed('literal', value));
  const strings = sourceStrings(sources).slice(0, MAX_SOURCE_STRINGS);
  for (const s of strings) probes.push(fixed('source-string', s));
  if (strings.length > 1) probes.push(fixed('source-strings', strings.join(' ')));
  return probes;
}

/** A long answer that repeats many words, so a grader that looks for a substring finds it. */
function longAnswer(): string {
  const words = 'yes true correct pass done 1 0 a b c the answer is ';
  return words.repeat(Math.ceil(LONG_ANSWER_CHARS / words.length)).slice(0, LONG_ANSWER_CHARS);
}

/** Values of `Literal["a", "b"]` annotations. */
export function literalValues(source: string): string[] {
  const out = new Set<string>();
  for (const m of source.matchAll(/Literal\[([^\]]*)\]/g)) {
    for (const s of stringLiterals(m[1] ?? '')) out.add(s);
  }
  return [...out];
}

/** Plain string literals of the grader's source, without docstrings, f-strings or format placeholders. */
export function sourceStrings(source: string): string[] {
  const withoutDocstrings = source.replace(/("""|''')[\s\S]*?\1/g, '');
  const out = new Set<string>();
  for (const s of stringLiterals(withoutDocstrings)) {
    if (s.trim() && s.length <= 200 && !/[{}]/.test(s)) out.add(s);
  }
  return [...out];
}

function stringLiterals(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![A-Za-z_])([rbuRBU]?)(["'])((?:\\.|(?!\2)[^\\\n])*)\2/g)) {
    const prefix = m[1] ?? '';
    const body = m[3] ?? '';
    if (/[fF]/.test(prefix)) continue;
    out.push(body.replace(/\\(["'\\])/g, '$1').replace(/\\n/g, '\n'));
  }
  return out;
}
