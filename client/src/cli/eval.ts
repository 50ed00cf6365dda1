/**
 * `hud-studio eval PATH...`: every task of every file, N times each, with a
 * live progress bar and a summary (mean reward, pass@k at a threshold,
 * errors per phase, each run's trace). Exit 0 when every run completed,
 * 1 when any run (or file) errored, 2 usage, 130 cancelled.
 */
import { parseSdkChoice } from '../engine/providers/servingSdk';
import { createAgent } from '../engine/agents/create';
import { UsageError, errorMessage } from '../engine/errors';
import { NopAgent } from '../engine/agents/nop';
import { isHarborDir, runJob, type JobSummary } from '../engine/job';
import { selectProvider } from '../engine/providers/select';
import { abortOnInterrupt } from './interrupt';
import { EXIT, type CliIO, type CliStream } from './io';
import { COMMON_OPTIONS, numberOption, parse, positiveNumber } from './options';
import { progressReporter } from './progress';
import { formatReward } from './render';

export const EVAL_USAGE = `usage: hud-studio eval PATH[::REF]... [options]

  Runs every task of each file (or the one REF names), N times each.

options:
  --group N            runs per task (default 1); pass@k uses k = N
  --max-concurrent N   rollouts at once (default 1)
  --threshold X        a run passes when its reward >= X (default 1.0)
  --agent, --answer, --command, --runtime, --image, --sdk, --trace-dir, --timeout, --module,
  --allow-service-access, --allow-shared-secrets, --json
                       as for run (--timeout applies to each rollout)

  A PATH that is a Harbor task directory (holds task.toml) runs as a Harbor trial.
`;

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
  if (positionals.length === 0) throw new UsageError('eval needs at least one PATH', { hint: 'hud-studio eval env.py --group 3' });
  const group = positiveNumber('group', values.group, true) ?? 1;
  const maxConcurrent = positiveNumber('max-concurrent', values['max-concurrent'], true) ?? 1;
  const threshold = numberOption('threshold', values.threshold) ?? 1.0;
  const timeoutSec = positiveNumber('timeout', values.timeout, false);
  // Harbor-only jobs may name agents env.py tasks do not have (oracle).
  const hudPaths = positionals.filter((p) => !isHarborDir(p, io.cwd));
  const agent = hudPaths.length ? createAgent({ agent: values.agent, answer: values.answer, command: values.command }) : new NopAgent();
  const interrupt = abortOnInterrupt(() => void io.stderr.write('\ncancelling: finishing no new runs, releasing every substrate\n'));
  const bar = progressReporter(io.stderr);
  try {
    const selected = await selectProvider(values.runtime, { serviceAccess: values['allow-service-access'] });
    if (selected.notice) io.stderr.write(`${selected.notice}\n`);
    const summary = await runJob({
      paths: positionals,
      cwd: io.cwd,
      provider: selected.provider,
      agent,
      group,
      maxConcurrent,
      threshold,
      signal: interrupt.signal,
      onProgress: (p) => bar.update(p),
      harbor: {
        agent: values.agent,
        answer: values.answer,
        command: values.command,
        runtime: values.runtime,
        image: values.image,
        notice: (line) => void io.stderr.write(`${line}\n`),
        allowSharedSecrets: values['allow-shared-secrets'],
      },
      allowSharedSecrets: values['allow-shared-secrets'],
      ...(values.module ? { module: values.module } : {}),
      ...(values['trace-dir'] ? { traceDir: values['trace-dir'] } : {}),
      ...(values.image ? { image: values.image } : {}),
      sdk: parseSdkChoice(values.sdk),
      ...(selected.dockerHost ? { dockerHost: selected.dockerHost } : {}),
      ...(timeoutSec ? { timeouts: { rolloutMs: timeoutSec * 1000 } } : {}),
    });
    bar.done();
    if (values.json) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    else writeSummary(io.stdout, summary);
    if (interrupt.signal.aborted || summary.cancelled > 0) return EXIT.cancelled;
    return summary.errored > 0 || summary.loadErrors.length > 0 ? EXIT.error : EXIT.ok;
  } catch (err) {
    bar.done();
    if (err instanceof UsageError) throw err;
    io.stderr.write(`hud-studio: ${errorMessage(err)}\n`);
    return EXIT.error;
  } finally {
    interrupt.dispose();
  }
}

function pct(x: number | null): string {
  return x === null ? '-' : `${(x * 100).toFixed(0)}%`;
}

function writeSummary(out: CliStream, s: JobSummary): void {
  const w = (line: string): void => void out.write(`${line}\n`);
  for (const t of s.tasks) {
    w(`${t.ref}`);
    w(`  runs ${t.runs.length}  mean ${t.meanReward === null ? '-' : formatReward(t.meanReward)}  passed ${t.passed}  pass@1 ${pct(t.passAt1)}  pass@${s.k} ${pct(t.passAtK)}`);
    for (const r of t.runs) {
      const what = r.status === 'completed' ? `reward ${formatReward(r.reward)}` : `${r.status}${r.error ? ` in ${r.error.phase}: ${r.error.message}` : ''}`;
      w(`    ${what}${r.trace ? `  ${r.trace}` : ''}`);
    }
  }
  for (const e of s.loadErrors) w(`! ${e.path}: ${e.message}`);
  w('');
  w(`${s.total} runs: ${s.completed} completed, ${s.errored} errored, ${s.cancelled} cancelled`);
  w(`mean reward ${s.meanReward === null ? '-' : formatReward(s.meanReward)} (errors count as 0)   pass@1 ${pct(s.passAt1)}   pass@${s.k} ${pct(s.passAtK)}   threshold ${s.threshold}`);
  w(`errors by phase: setup ${s.errorsByPhase.setup}, actor ${s.errorsByPhase.actor}, verifier ${s.errorsByPhase.verifier}`);
  if (s.summaryPath) w(`summary: ${s.summaryPath}`);
}
