/**
 * `hud-studio eval PATH...`: every task of every file, N times each, with a
 * live progress bar and a summary (mean reward, pass@k at a threshold,
 * errors per phase, each run's trace). Exit 0 when every run completed,
 * 1 when any run (or file) errored, 2 usage, 130 cancelled.
 */
import { relative, resolve } from 'node:path';
import { createAgent } from '../engine/agents/create';
import { UsageError } from '../engine/errors';
import { planJob, runJob, type JobSummary } from '../engine/job';
import type { ModelMatrix, ModelSummary } from '../engine/jobModels';
import { selectRuntime } from '../engine/runTask';
import { isHarborDir } from '../engine/taskLoader';
import { harborDatasetTasks } from '../../../common/harbor/loadTask';
import { DEFAULT_TRACE_DIR } from '../engine/trace/store';
import { cliErrorLine, withCliFix } from './fixHint';
import { abortOnInterrupt } from './interrupt';
import { EXIT, type CliIO, type CliStream } from './io';
import { MODEL_USAGE, withModelFlags } from './modelFlags';
import { CLI_AGENTS, choosesNoAgent } from '../engine/agents/kinds';
import { COMMON_OPTIONS, numberOption, parse, positiveNumber, requestBase } from './options';
import { progressReporter } from './progress';
import { formatReward } from './render';
import { forTerminal } from '../terminalText';

export const EVAL_USAGE = `usage: hud-studio eval PATH[::REF]... [options]

  Runs every task of each file (or the one REF names), N times each.

options:
  --group N            runs per task (default 1); pass@k uses k = N
  --max-concurrent N   rollouts at once (default 1)
  --threshold X        a run passes when its reward >= X (default 1.0)
  --model P/M          repeat to compare models: every task runs N times per model (llm agent)
  --agent, --answer, --command, --runtime, --image, --sdk, --trace-dir, --timeout, --call-timeout, --module,
  --allow-service-access, --allow-shared-secrets, --allow-environment-host, --allow-agent-host, --json
                       as for run (--timeout applies to each rollout)

  A PATH that is a Harbor task directory (holds task.toml) runs as a Harbor trial.

${MODEL_USAGE}`;

const EVAL_OPTIONS = {
  ...COMMON_OPTIONS,
  group: { type: 'string' },
  'max-concurrent': { type: 'string' },
  threshold: { type: 'string' },
} as const;

export async function evalCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(argv, EVAL_OPTIONS);
  if (values.help) {
    io.stdout.write(EVAL_USAGE);
    return EXIT.ok;
  }
  if (positionals.length === 0)
    throw new UsageError('eval needs at least one PATH', { hint: 'hud-studio eval env.py --group 3' });
  const group = positiveNumber('group', values.group, true) ?? 1;
  const maxConcurrent = positiveNumber('max-concurrent', values['max-concurrent'], true) ?? 1;
  const threshold = numberOption('threshold', values.threshold) ?? 1.0;
  const timeoutSec = positiveNumber('timeout', values.timeout, false);
  const models = [...new Set(values.model ?? [])];
  if (choosesNoAgent(values)) {
    // Every run would be scored as if nobody answered: say so before anything runs.
    throw new UsageError('eval has no way to produce answers: no --agent, --answer, --command or --model was given', {
      hint: `choose one: ${CLI_AGENTS.map((a) => `--agent ${a.kind} (${a.what})`).join('; ')}`,
    });
  }
  const base = withModelFlags(requestBase(values, io.cwd, timeoutSec), values, io.env, undefined);
  // One request per model (each checked now: a missing key is a usage error before anything starts).
  const perModel = models.map((model) => ({ model, request: withModelFlags(base, values, io.env, model) }));
  // A wrong agent flag is a usage error before anything starts (Harbor-only jobs may name oracle).
  const harborOnly = (p: string): boolean =>
    isHarborDir(p, io.cwd) || harborDatasetTasks(resolve(io.cwd, p)) !== undefined;
  if (!models.length && positionals.some((p) => !harborOnly(p)) && 'choice' in base.agent)
    createAgent(base.agent.choice);
  const interrupt = abortOnInterrupt(
    () => void io.stderr.write('\ncancelling: finishing no new runs, releasing every substrate\n'),
  );
  const bar = progressReporter(io.stderr);
  const notice = (line: string): void => void io.stderr.write(`${forTerminal(line)}\n`);
  try {
    const selected = await selectRuntime(base);
    if (selected.notice) notice(selected.notice);
    const plan = await planJob(positionals, base, selected.provider, interrupt.signal);
    const summary = await runJob({
      label: `eval ${positionals.map((p) => relative(io.cwd, resolve(io.cwd, p)) || '.').join(' ')}`,
      // Across models: every env.py task once per model (Harbor trials run Harbor's own agents).
      items: perModel.length
        ? plan.items.flatMap((item) =>
            isHarborDir(item.request.ref, io.cwd)
              ? [item]
              : perModel.map(({ model, request }) => ({
                  ...item,
                  model,
                  request: { ...request, ref: item.request.ref },
                })),
          )
        : plan.items,
      loadErrors: plan.loadErrors,
      group,
      maxConcurrent,
      threshold,
      selected,
      summaryDir: resolve(io.cwd, base.traceDir ?? DEFAULT_TRACE_DIR),
      signal: interrupt.signal,
      notice,
      onProgress: (p) => bar.update(p),
    });
    bar.done();
    if (values.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    else writeSummary(io.stdout, summary);
    if (summary.summaryError) io.stderr.write(`hud-studio: ${summary.summaryError}\n`);
    if (interrupt.signal.aborted || summary.cancelled > 0) return EXIT.cancelled;
    const lost = summary.summaryError !== undefined || summary.traceErrors > 0;
    return summary.errored > 0 || summary.loadErrors.length > 0 || lost ? EXIT.error : EXIT.ok;
  } catch (err) {
    bar.done();
    if (err instanceof UsageError) throw err;
    io.stderr.write(cliErrorLine(err));
    return EXIT.error;
  } finally {
    interrupt.dispose();
  }
}

function pct(x: number | null): string {
  return x === null ? '-' : `${(x * 100).toFixed(0)}%`;
}

/** `pass@1 50%  pass@3 88%`; with groups of one they are the same figure, shown once. */
function passAt(k: number, at1: number | null, atK: number | null, gap = '  '): string {
  return k > 1 ? `pass@1 ${pct(at1)}${gap}pass@${k} ${pct(atK)}` : `pass@1 ${pct(at1)}`;
}

function writeSummary(out: CliStream, s: JobSummary): void {
  const w = (line: string): void => void out.write(`${forTerminal(line)}\n`);
  for (const t of s.tasks) {
    w(`${t.ref}${t.model ? `  [${t.model}]` : ''}`);
    w(
      `  runs ${t.runs.length}  mean ${t.meanReward === null ? '-' : formatReward(t.meanReward)}  passed ${t.passed}  ${passAt(s.k, t.passAt1, t.passAtK)}`,
    );
    for (const r of t.runs) {
      const why = r.error ? ` in ${r.error.phase}: ${withCliFix(r.error.message, r.error.fix)}` : '';
      const what = r.status === 'completed' ? `reward ${formatReward(r.reward)}` : `${r.status}${why}`;
      const where = r.trace ? `  ${r.trace}` : r.traceError ? `  (no trace: ${r.traceError})` : '';
      w(`    ${what}${r.notStarted ? ' (never started)' : ''}${where}`);
    }
  }
  for (const e of s.loadErrors) w(`! ${e.path}: ${e.message}`);
  w('');
  w(`${s.total} runs: ${s.completed} completed, ${s.errored} errored, ${s.cancelled} cancelled`);
  w(
    `mean reward ${s.meanReward === null ? '-' : formatReward(s.meanReward)} (errors count as 0)   ${passAt(s.k, s.passAt1, s.passAtK, '   ')}   threshold ${s.threshold}`,
  );
  w(
    `errors by phase: setup ${s.errorsByPhase.setup}, actor ${s.errorsByPhase.actor}, verifier ${s.errorsByPhase.verifier}`,
  );
  if (s.models && s.matrix) writeModels(w, s.models, s.matrix, s.k);
  if (s.summaryPath) w(`summary: ${s.summaryPath}`);
}

function writeModels(w: (line: string) => void, models: ModelSummary[], matrix: ModelMatrix, k: number): void {
  const mr = (x: number | null): string => (x === null ? '-' : formatReward(x));
  const rows = [
    ['model', 'runs', 'mean', 'pass@1', `pass@${k}`, 'errors s/a/v', 'tokens in/out (cached)', 'wall'],
    ...models.map((m) => [
      m.model,
      String(m.runs),
      mr(m.meanReward),
      pct(m.passAt1),
      pct(m.passAtK),
      `${m.errorsByPhase.setup}/${m.errorsByPhase.actor}/${m.errorsByPhase.verifier}`,
      `${m.tokens.input}/${m.tokens.output} (${m.tokens.cached})`,
      `${(m.wallMs / 1000).toFixed(1)} s`,
    ]),
  ];
  w('');
  table(w, rows);
  w('');
  w('mean reward, task x model:');
  table(w, [
    ['task', ...matrix.models],
    ...matrix.tasks.map((ref, i) => [ref, ...(matrix.cells[i] ?? []).map((c) => mr(c.meanReward))]),
  ]);
}

function table(w: (line: string) => void, rows: string[][]): void {
  const widths = rows[0]!.map((_, j) => Math.max(...rows.map((r) => (r[j] ?? '').length)));
  for (const r of rows)
    w(
      r
        .map((cell, j) => cell.padEnd(widths[j]!))
        .join('  ')
        .trimEnd(),
    );
}
