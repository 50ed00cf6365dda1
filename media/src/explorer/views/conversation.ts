/** The prompt the agent got, each agent step with its tool calls, and the answer it submitted. */
import type { AgentStep, RunningTrace } from '../../../../common/trace/schema';
import { h } from '../dom';
import { promptText, valueText } from '../format';
import { plainTextBlock } from '../ansi';
import type { OpenState } from './openState';

export function renderPrompt(trace: RunningTrace): HTMLElement {
  return h(
    'section',
    { class: 'card', attrs: { id: 'section-prompt' } },
    h('h2', null, 'Prompt'),
    trace.prompt === undefined
      ? h('p', { class: 'muted' }, 'No prompt recorded.')
      : h('pre', { class: 'block', attrs: { 'data-testid': 'prompt' } }, promptText(trace.prompt)),
  );
}

export function renderAnswer(trace: RunningTrace, open: OpenState): HTMLElement {
  const sentUnchanged = trace.verifier && trace.actorResult !== undefined;
  return h(
    'section',
    { class: 'card', attrs: { id: 'section-answer' } },
    h('h2', null, 'Answer'),
    trace.answer === undefined
      ? h('p', { class: 'muted' }, 'No answer recorded.')
      : h('pre', { class: 'block', attrs: { 'data-testid': 'answer' } }, valueText(trace.answer)),
    sentUnchanged
      ? open.details(
          'actor-result',
          h('summary', null, "Actor's result frame (sent unchanged to the verifier)"),
          h('pre', { class: 'block' }, valueText(trace.actorResult)),
        )
      : null,
  );
}

export function renderAgentSteps(trace: RunningTrace, open: OpenState): HTMLElement {
  const steps = trace.agentSteps;
  const used = steps.filter((s) => s.usage);
  const total = used.reduce(
    (t, s) => ({
      input: t.input + s.usage!.input,
      output: t.output + s.usage!.output,
      cached: t.cached + s.usage!.cached,
    }),
    {
      input: 0,
      output: 0,
      cached: 0,
    },
  );
  return h(
    'section',
    { class: 'card', attrs: { id: 'section-agent' } },
    h('h2', null, `Agent steps (${steps.length})`),
    used.length
      ? h('p', { class: 'muted', attrs: { 'data-testid': 'agent-tokens' } }, `tokens: ${tokenText(total)}`)
      : null,
    steps.length === 0
      ? h('p', { class: 'muted' }, `No agent steps recorded (agent: ${trace.agent.kind}).`)
      : steps.map((s) => renderStep(s, open)),
  );
}

function renderStep(step: AgentStep, open: OpenState): HTMLElement {
  const calls = step.toolCalls;
  const errs = calls.filter((c) => c.isError).length;
  const preview = step.text ? firstLine(step.text) : '';
  const summary = h(
    'summary',
    { attrs: { 'data-testid': `agent-step-${step.index}` } },
    h('strong', null, `Step ${step.index}`),
    ' ',
    h(
      'span',
      { class: 'muted' },
      `${calls.length} tool call${calls.length === 1 ? '' : 's'}${errs ? `, ${errs} failed` : ''}`,
    ),
    step.usage ? [' ', h('span', { class: 'muted' }, `· ${tokenText(step.usage)}`)] : null,
    preview ? [' — ', h('span', { class: 'preview' }, preview)] : null,
  );
  return open.details(
    `agent-${step.index}`,
    summary,
    step.text ? h('pre', { class: 'block' }, step.text) : null,
    calls.map((c, i) =>
      h(
        'div',
        { class: `tool-call${c.isError ? ' is-error' : ''}`, data: { index: String(i) } },
        h(
          'div',
          { class: 'tool-name' },
          h('code', null, c.name),
          c.isError ? h('span', { class: 'badge status-error' }, 'error') : null,
        ),
        c.input === undefined
          ? null
          : h(
              'div',
              { class: 'tool-io' },
              h('span', { class: 'muted' }, 'input'),
              h('pre', { class: 'block' }, valueText(c.input)),
            ),
        c.output === undefined
          ? null
          : h(
              'div',
              { class: 'tool-io' },
              h('span', { class: 'muted' }, 'output'),
              h('pre', { class: 'block' }, plainTextBlock(valueText(c.output))),
            ),
      ),
    ),
  );
}

function tokenText(u: { input: number; output: number; cached: number }): string {
  return `in ${u.input}${u.cached ? ` (${u.cached} cached)` : ''}, out ${u.output}`;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
