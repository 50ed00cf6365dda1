/**
 * Entry point for Harbor task directories (lazily imported by the CLI and
 * the extension): load and check task.toml, run one trial on Docker, write
 * our trace plus a Harbor-style trial folder next to it, and resolve with the
 * same RolloutOutcome as an env.py rollout.
 */
import { relative, resolve } from 'node:path';
import { dockerHost } from '../docker/client';
import { Deadline } from '../deadline';
import { HudStudioError, UsageError } from '../errors';
import { EventHub, now } from '../events';
import type { FinishedRollout } from '../outcome';
import type { HarborRunRequest } from '../runRequest';
import { TraceRecorder } from '../trace/builder';
import { DEFAULT_TRACE_DIR } from '../trace/store';
import { loadHarborTask, type HarborTomlIssue, type LoadHarborTaskResult } from '../../../../server/src/harbor';
import { createHarborAgent } from './agents';
import { HarborTrial } from './trial';
import { createTrialFolder, trialName, writeTrialResult } from './trialFolder';

export type { HarborRunRequest } from '../runRequest';

/** Extra knobs only tests set. */
export interface HarborRunExtras {
  rolloutId?: string;
  /** `${VAR}` source; default process.env. */
  hostEnv?: Readonly<Record<string, string | undefined>>;
}

export async function runHarborTask(req: HarborRunRequest & HarborRunExtras): Promise<FinishedRollout & { trialDir: string }> {
  if (req.runtime !== 'auto' && req.runtime !== 'docker') {
    throw new UsageError(`Harbor tasks run in Docker; --runtime ${req.runtime} cannot run them`, { hint: 'drop --runtime or use --runtime docker' });
  }
  const loaded = loadHarborTask(req.taskDir);
  if (!loaded.ok) throw harborLoadError(loaded);
  const task = loaded.task;
  for (const w of task.warnings) req.notice(`${task.tomlPath}:${w.line}:${w.column}: warning: ${w.message}`);

  const agent = createHarborAgent({ ...(req.agent ? { agent: req.agent } : {}), ...(req.answer !== undefined ? { answer: req.answer } : {}), ...(req.command !== undefined ? { command: req.command } : {}) }, task);
  const ref = relative(req.cwd, task.dir).split('\\').join('/') || '.';
  const traceDir = resolve(req.cwd, req.traceDir ?? DEFAULT_TRACE_DIR);
  const recorder = new TraceRecorder(
    {
      ...(req.rolloutId ? { rolloutId: req.rolloutId } : {}),
      ...(req.jobId ? { jobId: req.jobId } : {}),
      taskRef: ref,
      agent: { kind: agent.kind, detail: agent.describe() },
      provider: { kind: 'docker', dockerHost: req.dockerHost ?? dockerHost() },
      traceDir,
    },
    req.hub ?? new EventHub(),
  );
  const { rolloutId, emit } = recorder;

  const name = trialName(task.name, rolloutId);
  const paths = createTrialFolder(traceDir, name);
  const deadline = new Deadline('Harbor trial', req.signal, req.timeoutMs);
  const trial = new HarborTrial({
    task,
    ref,
    agent,
    rolloutId,
    paths,
    signal: deadline.signal,
    emit,
    hostEnv: req.hostEnv ?? process.env,
    allowSharedSecrets: req.allowSharedSecrets ?? false,
    ...(req.image ? { image: req.image } : {}),
  });
  const startedAt = now();
  let ending;
  try {
    ending = await trial.execute();
  } finally {
    await trial.teardownAll();
    deadline.dispose();
  }

  const endedAt = now();
  const harbor = {
    trialDir: paths.root,
    rewards: ending.reward?.rewards ?? {},
    environmentMode: task.config.verifier.environmentMode,
    agentTimedOut: ending.agentTimedOut,
  };
  const { trace, tracePath, traceError, reward } = recorder.end(
    { status: ending.status, result: ending.result, error: ending.error, harbor },
    true,
    (trace, tracePath) => {
      writeTrialResult(paths, {
        task_name: task.name,
        trial_name: name,
        task_path: task.dir,
        task_checksum: trace.task.sourceHash,
        agent_info: { name: agent.kind, detail: agent.describe() },
        verifier_result: ending.reward ? { rewards: ending.reward.rewards } : null,
        exception_info: ending.error
          ? {
              phase: ending.error.phase,
              exception_type: ending.error.code ?? 'error',
              exception_message: ending.error.message,
            }
          : null,
        started_at: startedAt,
        finished_at: endedAt,
        ...ending.timings,
        hud_studio: {
          rollout_id: rolloutId,
          status: ending.status,
          reward: ending.status === 'completed' ? (ending.result?.reward ?? null) : null,
          environment_mode: task.config.verifier.environmentMode,
          agent_timed_out: ending.agentTimedOut,
          trace_path: tracePath,
          warnings: trace.warnings,
        },
      });
    },
  );
  const error = ending.error ? { phase: ending.error.phase, message: ending.error.message } : null;
  return {
    rolloutId,
    ref,
    status: ending.status,
    reward,
    result: ending.result,
    error,
    tracePath,
    ...(traceError ? { traceError } : {}),
    trace,
    trialDir: paths.root,
  };
}

/** The loader's issues as one typed error: the first locates it, the rest are listed. */
export function harborLoadError(result: Extract<LoadHarborTaskResult, { ok: false }>): HudStudioError {
  const [first, ...rest] = result.errors as [HarborTomlIssue, ...HarborTomlIssue[]];
  const { message, hint } = splitFix(first.message);
  const more = rest.map((e) => `\n  ${result.tomlPath}:${e.line}:${e.column}: ${e.message}`).join('');
  return new HudStudioError('harbor-config', `${message}${more}`, {
    location: { file: result.tomlPath, line: first.line, column: first.column, ...(first.key ? { key: first.key } : {}) },
    ...(hint ? { hint } : {}),
  });
}

function splitFix(text: string): { message: string; hint: string | undefined } {
  const m = /^([\s\S]*?)\s*\(fix:?\s*([\s\S]*)\)$/.exec(text);
  return m ? { message: m[1]!, hint: m[2]! } : { message: text, hint: undefined };
}
