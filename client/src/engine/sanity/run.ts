/**
 * The sanity check of a task's grader: every probe answer must score 0 (or
 * what a golden row says it should), and every golden answer must meet its
 * row. A probe that scores above 0 marks the grader as gameable and names
 * the answer that gamed it (docs/grader-workbench.md).
 */
import { errorMessage } from '../errors';
import type { DiscoveredTask } from '../discover';
import { satisfies } from '../../../../common/golden/expect';
import type { GoldenFile } from '../golden/file';
import { runGoldenRow, type GoldenOutcome } from '../golden/run';
import type { RunContext, RunTask, TaskRunRequest } from '../runRequest';
import { probesFor, type Probe } from './probes';

export interface ProbeOutcome {
  probe: string;
  /** The answer as shown to people (the echo probe shows the prompt it echoed). */
  answer: string;
  reward: number | null;
  /** True when the reward is above 0 and no golden row allows it. */
  gamed: boolean;
  error?: string;
}

export interface TaskSanity {
  task: DiscoveredTask;
  probes: ProbeOutcome[];
  golden: GoldenOutcome[];
  /** The probes that gamed the grader. */
  gamedBy: ProbeOutcome[];
  sound: boolean;
}

export interface SanityOptions {
  cwd: string;
  runtime: string;
  image?: string;
  context?: RunContext;
  golden?: GoldenFile;
  run?: RunTask;
  /** What the editor adds to every probe's run (its Docker host, credentials, SDK and time limits). */
  request?: Partial<Pick<TaskRunRequest, 'dockerHost' | 'credentials' | 'sdk' | 'limits'>>;
}

export async function sanityOfTask(task: DiscoveredTask, opts: SanityOptions): Promise<TaskSanity> {
  const run = opts.run ?? (await import('../runTask')).runTask;
  const rows = (opts.golden?.rows ?? []).filter((r) => task.ref.endsWith(`::${r.task}`) || r.task === task.selector);
  const probes: ProbeOutcome[] = [];
  for (const probe of probesFor(task)) {
    if (opts.context?.signal?.aborted) break;
    probes.push(await runProbe(task, probe, run, opts));
  }
  for (const p of probes) {
    // A golden row may say that an answer a probe sends deserves a reward.
    const allowed = rows.find(
      (r) => typeof r.answer === 'string' && r.answer === p.answer && satisfies(r.expect, p.reward),
    );
    p.gamed = p.reward !== null && p.reward > 0 && !allowed;
  }
  const golden: GoldenOutcome[] = [];
  for (const row of rows) {
    if (!opts.golden) break;
    golden.push(await runGoldenRow(opts.golden, row, { ...opts, run }));
  }
  const gamedBy = probes.filter((p) => p.gamed);
  const sound = gamedBy.length === 0 && golden.every((g) => g.passed);
  return { task, probes, golden, gamedBy, sound };
}

async function runProbe(task: DiscoveredTask, probe: Probe, run: RunTask, opts: SanityOptions): Promise<ProbeOutcome> {
  try {
    const done = await run(
      {
        ref: task.ref,
        cwd: opts.cwd,
        runtime: opts.runtime,
        agent: { instance: probe.agent },
        consent: { serviceAccess: false, sharedSecrets: false },
        traceDir: null,
        ...opts.request,
        ...(opts.image ? { image: opts.image } : {}),
      },
      { ...opts.context, task },
    );
    const shown = probe.name === 'echo' && typeof done.trace.answer === 'string' ? done.trace.answer : probe.shown;
    if (done.status !== 'completed') {
      return {
        probe: probe.name,
        answer: shown,
        reward: null,
        gamed: false,
        error: done.error?.message ?? done.status,
      };
    }
    return { probe: probe.name, answer: shown, reward: done.reward, gamed: false };
  } catch (err) {
    return { probe: probe.name, answer: probe.shown, reward: null, gamed: false, error: errorMessage(err) };
  }
}
