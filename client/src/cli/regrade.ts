/**
 * `hud-studio regrade PATH[::REF]`: grade the stored rollouts of a task again
 * with the current source, without their agents, and show what changed
 * (docs/grader-workbench.md). Exit 0 when every rollout regraded, 1 otherwise.
 */
import { UsageError } from '../engine/errors';
import { formatChange, type GradeDelta, type RegradeSummary } from '../engine/regrade/delta';
import type { RegradeResult } from '../engine/regrade/regrade';
import { regradeRollouts, type RegradeReport } from '../engine/regrade/regradeRollouts';
import { storedRollouts } from '../engine/regrade/stored';
import { DEFAULT_TRACE_DIR } from '../engine/trace/store';
import { formatScore } from '../engine/grade';
import { abortOnInterrupt } from './interrupt';
import { EXIT, type CliIO } from './io';
import { parse } from './options';
import { forTerminal } from '../terminalText';

export const REGRADE_USAGE = `usage: hud-studio regrade PATH[::REF] [options]

  Grades the stored rollouts of a task again with the current grader source,
  answering each with its recorded answer instead of running its agent.

options:
  --traces DIR    where the stored traces are (default .hud-studio/traces)
  --trace-dir DIR where regrade traces go (default: the --traces folder)
  --runtime R     auto | docker | local | tcp://HOST:PORT (default auto)
  --image IMG     image for Docker substrates
  --json          print one JSON object instead of the table
`;

const OPTIONS = {
  traces: { type: 'string' },
  'trace-dir': { type: 'string' },
  runtime: { type: 'string', default: 'auto' },
  image: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export interface RegradeJsonRow {
  of: string;
  storedTrace: string;
  trace: string | null;
  before: number | null;
  after: number | null;
  direction: GradeDelta['direction'] | null;
  subscores: GradeDelta['subscores'];
  stale: boolean;
  error: string | null;
}

export interface RegradeJson {
  ref: string;
  rollouts: RegradeJsonRow[];
  summary: RegradeSummary;
}

export async function regradeCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv, OPTIONS);
  if (values.help) {
    io.stdout.write(REGRADE_USAGE);
    return EXIT.ok;
  }
  if (positionals.length !== 1) {
    throw new UsageError(`regrade takes exactly one PATH[::REF], got ${positionals.length}`, {
      hint: 'hud-studio regrade env.py::task',
    });
  }
  const ref = positionals[0]!;
  const traces = values.traces ?? DEFAULT_TRACE_DIR;
  const stored = storedRollouts(ref, io.cwd, traces, (line) => void io.stderr.write(`warning: ${line}\n`));
  if (!stored.length) {
    io.stderr.write(`hud-studio: no stored rollouts of ${ref} in ${traces}\n`);
    return EXIT.error;
  }
  const interrupt = abortOnInterrupt(() => void io.stderr.write('cancelling the regrade\n'));
  let report: RegradeReport;
  try {
    report = await regradeRollouts(
      stored.map((s) => s.trace),
      {
        cwd: io.cwd,
        runtime: values.runtime,
        traceDir: values['trace-dir'] ?? traces,
        context: {
          signal: interrupt.signal,
          ...(values.json ? {} : { notice: (text: string) => void io.stderr.write(`${forTerminal(text)}\n`) }),
        },
        ...(values.image ? { image: values.image } : {}),
        ...(values.json
          ? {}
          : { onResult: (r: RegradeResult) => void io.stdout.write(`${forTerminal(line(r), '')}\n`) }),
      },
    );
  } finally {
    interrupt.dispose();
  }
  const { results, summary } = report;
  if (values.json) {
    const rows = results.map((r, i) => jsonRow(stored[i]!.path, r));
    const json: RegradeJson = { ref, rollouts: rows, summary };
    io.stdout.write(`${JSON.stringify(json, null, 2)}\n`);
  } else io.stdout.write(`${summaryLine(summary)}\n`);
  if (interrupt.signal.aborted) return EXIT.cancelled;
  return summary.failed ? EXIT.error : EXIT.ok;
}

function line(r: RegradeResult): string {
  const id = r.original.rolloutId.slice(0, 8);
  if (!r.delta) return `${id}  not regraded: ${r.error ?? 'unknown reason'}`;
  const subs = r.delta.subscores.map((s) => `${s.name} ${formatChange(s.before, s.after)}`).join(', ');
  const stale = r.stale ? '  (grader changed)' : '';
  return `${id}  ${formatChange(r.delta.before, r.delta.after)}  ${r.delta.direction}${stale}${subs ? `\n    ${subs}` : ''}`;
}

export function summaryLine(s: RegradeSummary): string {
  const mean = (x: number | null): string => (x === null ? '-' : formatScore(x));
  const failed = s.failed ? `, ${s.failed} not regraded` : '';
  return (
    `${s.total} rollouts: ${s.up} up, ${s.down} down, ${s.unchanged} unchanged${failed}; ` +
    `mean ${mean(s.meanBefore)} -> ${mean(s.meanAfter)}`
  );
}

function jsonRow(path: string, r: RegradeResult): RegradeJsonRow {
  return {
    of: r.original.rolloutId,
    storedTrace: path,
    trace: r.tracePath ?? null,
    before: r.delta?.before ?? r.original.result?.reward ?? null,
    after: r.delta?.after ?? null,
    direction: r.delta?.direction ?? null,
    subscores: r.delta?.subscores ?? [],
    stale: r.stale,
    error: r.error ?? null,
  };
}
