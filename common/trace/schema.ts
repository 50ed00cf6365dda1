/**
 * The trace file format (`*.hudtrace.json`), shared by the engine that writes
 * it, the CLI, the extension's views and the trace explorer webview that read
 * it. A trace is untrusted input when read back: always parse it with
 * {@link parseTrace}, never cast.
 */
import { z } from 'zod';

export { TRACE_FILE_SUFFIX } from './fileName';

export const TRACE_SCHEMA_VERSION = 1;

export const PhaseName = z.enum(['actor', 'verifier']);
export type PhaseName = z.infer<typeof PhaseName>;

/** Where a failure happened: a phase, or before any phase started. */
export const ErrorPhase = z.enum(['setup', 'actor', 'verifier']);
export type ErrorPhase = z.infer<typeof ErrorPhase>;

export const StepName = z.enum(['setup', 'prompt', 'agent', 'answer', 'grade', 'teardown', 'collect', 'verify']);
export type StepName = z.infer<typeof StepName>;

export const RolloutStatus = z.enum(['completed', 'error', 'cancelled']);
export type RolloutStatus = z.infer<typeof RolloutStatus>;

export const LogStream = z.enum(['stdout', 'stderr', 'server', 'agent', 'engine']);
export type LogStream = z.infer<typeof LogStream>;

export interface SubScoreT {
  name: string;
  value: number;
  weight: number;
  metadata?: Record<string, unknown> | undefined;
  children?: SubScoreT[] | undefined;
}
export const SubScore: z.ZodType<SubScoreT> = z.lazy(() =>
  z.object({
    name: z.string(),
    value: z.number(),
    weight: z.number(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    children: z.array(SubScore).optional(),
  }),
);

/** A grade as the engine records it (wire `score` is called `reward` here). */
export const GradeResult = z.object({
  reward: z.number().nullable(),
  subscores: z.array(SubScore).default([]),
  info: z.record(z.string(), z.unknown()).default({}),
  content: z.unknown().optional(),
  isError: z.boolean().default(false),
});
export type GradeResult = z.infer<typeof GradeResult>;

/** The HUD SDK that served a phase: the image's own (`hud-python`) or HUD Studio's bundled runtime. */
export const ServingSdk = z.object({
  name: z.string(),
  version: z.string(),
  source: z.enum(['image', 'bundled']),
});
export type ServingSdk = z.infer<typeof ServingSdk>;

export const SubstrateInfo = z.object({
  /** Container id, process id or `tcp://host:port`. */
  id: z.string(),
  provider: z.enum(['docker', 'local', 'url', 'compose']),
  isolation: z.enum(['container', 'process', 'borrowed']),
  image: z.string().optional(),
  imageId: z.string().optional(),
  /** For borrowed servers: the address; the verifier may share the live server. */
  address: z.string().optional(),
  network: z.string().optional(),
  /** Who serves the environment here (absent for borrowed servers: unknown). */
  sdk: ServingSdk.optional(),
});
export type SubstrateInfo = z.infer<typeof SubstrateInfo>;

export const TraceLog = z.object({
  /** Milliseconds since the rollout started. */
  t: z.number(),
  stream: LogStream,
  text: z.string(),
});
export type TraceLog = z.infer<typeof TraceLog>;

export const TraceStep = z.object({
  step: StepName,
  startedAt: z.string(),
  endedAt: z.string().optional(),
  status: z.enum(['completed', 'error', 'cancelled', 'running']),
  detail: z.string().optional(),
});
export type TraceStep = z.infer<typeof TraceStep>;

export const ToolCall = z.object({
  name: z.string(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  isError: z.boolean().optional(),
});
/** Tokens of one model step (input includes the cached part). */
export const TokenUsage = z.object({ input: z.number(), output: z.number(), cached: z.number() });
export type TokenUsage = z.infer<typeof TokenUsage>;
export const AgentStep = z.object({
  index: z.number().int(),
  at: z.string(),
  text: z.string().optional(),
  toolCalls: z.array(ToolCall).default([]),
  usage: TokenUsage.optional(),
});
export type AgentStep = z.infer<typeof AgentStep>;

/**
 * One model call a grader made through a rollout's model gateway
 * (docs/models.md): the model, the HTTP status, and what could be read of
 * the criterion, verdict, reason and tokens (absent when not recognised).
 */
export const JudgeCall = z.object({
  phase: PhaseName,
  at: z.string(),
  model: z.string(),
  status: z.number().int(),
  criterion: z.string().optional(),
  verdict: z.string().optional(),
  reason: z.string().optional(),
  tokens: z.object({ input: z.number(), output: z.number() }).optional(),
  durationMs: z.number(),
});
export type JudgeCall = z.infer<typeof JudgeCall>;

export const TracePhase = z.object({
  name: PhaseName,
  substrate: SubstrateInfo.nullable(),
  /** True when the verifier ran on the actor's substrate and channel. */
  reused: z.boolean(),
  status: RolloutStatus.or(z.literal('running')),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  steps: z.array(TraceStep).default([]),
  logs: z.array(TraceLog).default([]),
  /** The whole log, relative to the trace's folder, when `logs` keeps only its head and tail. */
  logFile: z.string().optional(),
  grade: GradeResult.optional(),
  /** Raw grade frame as the environment sent it. */
  rawGrade: z.unknown().optional(),
  error: z.string().optional(),
});
export type TracePhase = z.infer<typeof TracePhase>;

export const TaskIdentity = z.object({
  /** Task reference (docs/hud-protocol.md). */
  ref: z.string(),
  kind: z.enum(['hud', 'harbor']),
  env: z.string(),
  id: z.string(),
  args: z.record(z.string(), z.unknown()).default({}),
  slug: z.string(),
  description: z.string().optional(),
  /** SHA-256 of the template's source plus the canonical args. */
  sourceHash: z.string(),
  /** The template's source (or task.toml + test.sh for Harbor) so an old trace shows what it ran. */
  source: z.string().optional(),
  runtimeConfig: z.unknown().optional(),
});
export type TaskIdentity = z.infer<typeof TaskIdentity>;

/**
 * A stretch of the engine's own work (container start, copy-in, discovery,
 * server start and stop, removal, the agent, the verifier), timed by the
 * engine, so that a run shows where its time went (docs/trace-format.md).
 */
export const TraceSpan = z.object({
  name: z.string(),
  phase: PhaseName,
  /** Milliseconds since the rollout started. */
  atMs: z.number(),
  ms: z.number(),
});
export type TraceSpan = z.infer<typeof TraceSpan>;

export const TraceEvent = z.object({
  at: z.string(),
  type: z.string(),
  phase: PhaseName.optional(),
  step: StepName.optional(),
  message: z.string().optional(),
});
export type TraceEvent = z.infer<typeof TraceEvent>;

export const Trace = z.object({
  schemaVersion: z.literal(TRACE_SCHEMA_VERSION),
  rolloutId: z.string(),
  jobId: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string().optional(),
  durationMs: z.number().optional(),
  task: TaskIdentity,
  verifier: TaskIdentity.omit({ ref: true }).extend({ ref: z.string().optional() }).nullable(),
  agent: z.object({ kind: z.string(), detail: z.string().optional() }),
  provider: z.object({
    kind: z.enum(['docker', 'local', 'url']),
    /** How the verifier's substrate relates to the actor's. */
    verifierSubstrate: z.enum(['fresh', 'reused', 'borrowed', 'none']),
    dockerHost: z.string().optional(),
  }),
  phases: z.array(TracePhase),
  prompt: z.unknown().optional(),
  /** The answer exactly as sent to the actor's `tasks.grade`. */
  answer: z.unknown().optional(),
  /** The actor's raw result frame, sent unchanged to the verifier as its answer. */
  actorResult: z.unknown().optional(),
  agentSteps: z.array(AgentStep).default([]),
  /** Model calls made through the rollout's gateways (judges), in the order they ended. */
  judgeCalls: z.array(JudgeCall).default([]),
  result: GradeResult.nullable(),
  status: RolloutStatus,
  error: z.object({ phase: ErrorPhase, message: z.string(), code: z.string().optional() }).nullable(),
  warnings: z.array(z.string()).default([]),
  /** True when the reward came from a substrate where the agent had the server's privileges. */
  forgeable: z.boolean().optional(),
  events: z.array(TraceEvent).default([]),
  /** Where the engine's time went, in the order the stretches ended (absent in older traces). */
  spans: z.array(TraceSpan).optional(),
  /** Set on a trace that graded a stored rollout's answer again (docs/grader-workbench.md). */
  regrade: z
    .object({
      /** The rolloutId of the stored rollout whose answer was graded again. */
      of: z.string(),
      /** The sourceHash of the grader that ran (the verifier's, else the task's). */
      graderHash: z.string(),
    })
    .optional(),
  /** Harbor trial extras. */
  harbor: z
    .object({
      trialDir: z.string().optional(),
      rewards: z.record(z.string(), z.number()).default({}),
      environmentMode: z.enum(['shared', 'separate']).optional(),
      agentTimedOut: z.boolean().optional(),
      /** Shared-mode reward earned by a root agent: the agent could have faked it (docs/harbor.md). */
      forgeable: z.boolean().optional(),
    })
    .optional(),
});
export type Trace = z.infer<typeof Trace>;

/**
 * A rollout as it stands while it runs: the trace format, except that the
 * status may still be `running`. Never written as a file (see
 * docs/trace-format.md); the explorer receives it in its own message.
 */
export const RunningTrace = Trace.extend({ status: RolloutStatus.or(z.literal('running')) });
export type RunningTrace = z.infer<typeof RunningTrace>;

export type TraceParseResult = { ok: true; trace: Trace } | { ok: false; error: string };
export type RunningTraceParseResult = { ok: true; trace: RunningTrace } | { ok: false; error: string };

/** Validates untrusted JSON as a trace; the error names the first bad field. */
export function parseTrace(json: unknown): TraceParseResult {
  const r = Trace.safeParse(json);
  return r.success ? { ok: true, trace: r.data } : { ok: false, error: firstIssue('a HUD Studio trace', r.error) };
}

/** Validates untrusted JSON as a running (or finished) rollout's trace. */
export function parseRunningTrace(json: unknown): RunningTraceParseResult {
  const r = RunningTrace.safeParse(json);
  if (r.success) return { ok: true, trace: r.data };
  return { ok: false, error: firstIssue('a running HUD Studio trace', r.error) };
}

function firstIssue(what: string, error: z.ZodError): string {
  const issue = error.issues[0];
  const where = issue && issue.path.length ? issue.path.join('.') : '(root)';
  return `not ${what}: ${where}: ${issue?.message ?? 'invalid'}`;
}
