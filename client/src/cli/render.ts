/**
 * Human output of a rollout as it happens: each phase with its substrate,
 * steps and logs, then the grade with subscores and the reward.
 */
import type { RolloutEvent } from '../../../common/events';
import { withCliFix } from './fixHint';
import { formatScore } from '../engine/grade';
import { foldRolloutEvent } from '../../../common/trace/fold';
import type { GradeResult, RunningTrace, SubScoreT } from '../../../common/trace/schema';
import type { CliStream } from './io';
import { forTerminal } from '../terminalText';

export function formatReward(x: number | null): string {
  return x === null ? 'none' : formatScore(x);
}

function oneLine(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const flat = (text ?? String(value)).replace(/\s*\n\s*/g, ' ⏎ ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function formatSubscores(subs: SubScoreT[], indent: string): string[] {
  const lines: string[] = [];
  const walk = (list: SubScoreT[], depth: number): void => {
    for (const s of list) {
      const penalty = s.weight < 0 ? ' (penalty)' : '';
      lines.push(`${indent}${'  '.repeat(depth)}${s.name}: ${formatReward(s.value)} × ${s.weight}${penalty}`);
      if (s.children?.length) walk(s.children, depth + 1);
    }
  };
  walk(subs, 0);
  return lines;
}

function gradeLines(result: GradeResult, indent: string): string[] {
  const lines = formatSubscores(result.subscores, `${indent}  `);
  if (Object.keys(result.info).length) lines.push(`${indent}  info: ${oneLine(result.info)}`);
  if (result.isError && result.content !== undefined) lines.push(`${indent}  error: ${oneLine(result.content)}`);
  return lines;
}

/** Returns a listener that writes the rollout's events to `out`. */
export function humanRenderer(out: CliStream): (e: RolloutEvent) => void {
  return new HumanRenderer(out).listener;
}

/**
 * Prints events as they come, and folds them like the trace writer does, so
 * what it prints from the rollout so far (a warning once, however often it
 * is raised) is what the trace file says. Log lines are printed, not kept:
 * a rollout may print far more than memory holds.
 */
export class HumanRenderer {
  readonly traces = new Map<string, RunningTrace>();

  constructor(private readonly out: CliStream) {}

  readonly listener = (e: RolloutEvent): void => {
    const before = this.traces.get(e.rolloutId);
    const seen = before?.warnings.length ?? 0;
    const trace = foldRolloutEvent(before ?? null, e, { onLog: () => undefined });
    if (trace) this.traces.set(e.rolloutId, trace);
    if (e.type === 'warning' && trace && trace.warnings.length === seen) return;
    this.print(e);
  };

  private print(e: RolloutEvent): void {
    const w = (line: string): void => void this.out.write(`${forTerminal(line)}\n`);
    switch (e.type) {
      case 'rollout.queued':
        w(`▶ ${e.taskRef}`);
        break;
      case 'rollout.started':
        w(
          `  task ${e.task.env}/${e.task.id} (${e.task.slug})${e.verifier ? `, verified by ${e.verifier.env}/${e.verifier.id}` : ', no verifier'}`,
        );
        break;
      case 'phase.started': {
        const s = e.substrate;
        const served = s?.sdk
          ? `, served by ${s.sdk.source === 'image' ? `the image's SDK ${s.sdk.name} ${s.sdk.version}` : 'the bundled runtime'}`
          : '';
        const where = s
          ? `${e.reused ? 'same' : s.isolation === 'borrowed' ? 'borrowed' : 'fresh'} ${s.provider} substrate ${s.id} (isolation: ${s.isolation}${served})`
          : 'no substrate';
        w(`┌ ${e.phase} phase on ${where}`);
        break;
      }
      case 'step':
        if (e.status !== 'started') w(`│ ${e.phase} ${e.step}: ${e.status}${e.detail ? ` - ${e.detail}` : ''}`);
        break;
      case 'log':
        w(`│   [${e.stream}] ${e.text}`);
        break;
      case 'prompt':
        w(`│ prompt: ${oneLine((e.prompt as { prompt?: unknown })?.prompt ?? e.prompt)}`);
        break;
      case 'answer':
        w(`│ answer: ${oneLine(e.answer)}`);
        break;
      case 'grade':
        w(
          `│ ${e.phase} grade: ${formatReward(e.result.reward)}${e.authoritative ? '' : ' (provisional)'}${e.result.isError ? ' [isError]' : ''}`,
        );
        for (const l of gradeLines(e.result, '│ ')) w(l);
        break;
      case 'phase.ended':
        w(`└ ${e.phase} phase ${e.status}${e.error ? `: ${e.error}` : ''}`);
        break;
      case 'warning':
        w(`! ${e.message}`);
        break;
      case 'rollout.ended':
        // A mistake in the command line (which task, which file): the CLI says it once, as a usage error, and exits 2.
        if (e.error?.code === 'usage') break;
        if (e.status === 'completed') w(`reward ${formatReward(e.reward)}`);
        else if (e.reward !== null) {
          const why = e.error ? withCliFix(e.error.message, e.error.fix) : '';
          w(
            `${e.status} in ${e.error?.phase ?? 'a phase'}: ${why} (reward ${formatReward(e.reward)} from the verifier stands)`,
          );
        } else
          w(
            `${e.status}${e.error ? ` in ${e.error.phase}: ${withCliFix(e.error.message, e.error.fix)}` : ''} (no reward)`,
          );
        if (e.tracePath) w(`trace: ${e.tracePath}`);
        break;
      default:
        break;
    }
  }
}
