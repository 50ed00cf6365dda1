/**
 * The one way to run a task: a typed request in, the outcome and its trace
 * out. It sends a Harbor task directory to the Harbor runner and anything
 * else to the env.py rollout, picks the runtime unless the job already did,
 * and binds the run's Docker endpoint. The CLI's run, the eval pool and the
 * editor's runner all come through here (`docs/engine.md`).
 */
import { resolve } from 'node:path';
import { createAgent } from './agents/create';
import { withDockerEndpoint } from './docker/client';
import { UsageError } from './errors';
import { EventHub } from '../../../common/events';
import { markNoAnswer, type FinishedRollout } from './outcome';
import { selectProvider, type SelectedProvider } from './providers/select';
import { runRollout } from './rollout';
import type { RunContext, TaskRunRequest } from './runRequest';
import { isHarborDir } from './taskLoader';

export async function runTask(req: TaskRunRequest, ctx: RunContext = {}): Promise<FinishedRollout> {
  // The Docker layer reads the endpoint bound here; process.env stays as it was.
  const done = await withDockerEndpoint(req.dockerHost, () =>
    isHarborDir(req.ref, req.cwd) ? runHarbor(req, ctx) : runHud(req, ctx),
  );
  return markNoAnswer(done, done.trace);
}

/** Picks the provider for a request's runtime: once per job, or per run when nobody did. */
export function selectRuntime(
  req: Pick<TaskRunRequest, 'runtime' | 'dockerHost' | 'consent'>,
): Promise<SelectedProvider> {
  return selectProvider(req.runtime, { serviceAccess: req.consent.serviceAccess, dockerHost: req.dockerHost });
}

async function runHud(req: TaskRunRequest, ctx: RunContext): Promise<FinishedRollout> {
  const agent = 'instance' in req.agent ? req.agent.instance : createAgent(req.agent.choice);
  let selected = ctx.selected;
  if (!selected) {
    selected = await selectRuntime(req);
    if (selected.notice) ctx.notice?.(selected.notice);
  }
  const { limits } = req;
  return runRollout({
    ref: req.ref,
    cwd: req.cwd,
    provider: selected.provider,
    agent,
    hub: ctx.hub ?? new EventHub(),
    allowSharedSecrets: req.consent.sharedSecrets,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(ctx.jobId ? { jobId: ctx.jobId } : {}),
    ...(ctx.rolloutId ? { rolloutId: ctx.rolloutId } : {}),
    ...(ctx.task ? { task: ctx.task } : {}),
    ...(ctx.removeLater ? { removeLater: ctx.removeLater } : {}),
    ...(req.module ? { module: req.module } : {}),
    ...(req.traceDir !== undefined ? { traceDir: req.traceDir } : {}),
    ...(req.image ? { image: req.image } : {}),
    ...(req.sdk ? { sdk: req.sdk } : {}),
    ...(req.credentials ? { credentials: req.credentials } : {}),
    ...(req.judge ? { judge: req.judge } : {}),
    ...(req.recorded ? { recorded: req.recorded } : {}),
    ...(selected.dockerHost ? { dockerHost: selected.dockerHost } : {}),
    ...(limits ? { timeouts: limits } : {}),
  });
}

async function runHarbor(req: TaskRunRequest, ctx: RunContext): Promise<FinishedRollout> {
  if (req.runtime !== 'auto' && req.runtime !== 'docker') {
    throw new UsageError(`Harbor tasks run in Docker; the ${req.runtime} runtime cannot run them`, {
      fix: { kind: 'runtime', use: 'docker' },
    });
  }
  if ('instance' in req.agent && !req.recorded?.trialDir) {
    throw new UsageError(
      `${req.ref} is a Harbor task: it runs Harbor's agents (oracle, nop, command), not "${req.agent.instance.kind}"`,
    );
  }
  const { runHarborTask } = await import('./harbor/run');
  const choice = 'choice' in req.agent ? req.agent.choice : undefined;
  const trialDir = req.recorded?.trialDir;
  return runHarborTask({
    taskDir: resolve(req.cwd, req.ref),
    cwd: req.cwd,
    agent: choice?.agent,
    answer: choice?.answer,
    command: choice?.command,
    ...(choice?.solution !== undefined ? { solution: choice.solution } : {}),
    ...(trialDir && 'instance' in req.agent ? { stored: { trialDir, agent: req.agent.instance } } : {}),
    runtime: req.runtime,
    image: req.image,
    traceDir: req.traceDir ?? undefined,
    timeoutMs: req.limits?.rolloutMs,
    signal: ctx.signal ?? new AbortController().signal,
    hub: ctx.hub ?? new EventHub(),
    notice: ctx.notice ?? (() => undefined),
    allowSharedSecrets: req.consent.sharedSecrets,
    allowServiceAccess: req.consent.serviceAccess,
    ...(req.extraHosts ? { extraHosts: req.extraHosts } : {}),
    ...(ctx.jobId ? { jobId: ctx.jobId } : {}),
    ...(ctx.rolloutId ? { rolloutId: ctx.rolloutId } : {}),
    ...(req.dockerHost ? { dockerHost: req.dockerHost } : {}),
  });
}
