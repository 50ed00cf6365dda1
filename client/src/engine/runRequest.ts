/**
 * The typed requests of the engine. {@link TaskRunRequest} is what every front
 * end (the CLI's run and eval, the editor's runner) hands to `runTask`, the
 * one entry that sends a task to the env.py rollout or the Harbor runner.
 * {@link HarborRunRequest} is the Harbor runner's own input, built by
 * `runTask` only. See `docs/engine.md`.
 */
import type { ExtraHosts } from './harbor/network';
import type { SdkChoice } from './providers/servingSdk';
import type { Agent } from './agents/agent';
import type { AgentChoice } from './agents/create';
import type { ModelEndpoint } from './agents/llm/modelRef';
import type { DiscoveredTask } from './discover';
import type { EventHub } from '../../../common/events';
import type { FinishedRollout } from './outcome';
import type { SelectedProvider } from './providers/select';

export interface RunLimits {
  /** The whole rollout. */
  rolloutMs?: number;
  /** Each phase, unless the task's own limits say otherwise. */
  phaseMs?: number;
  /** A substrate ready and its server listening, unless the task's own limits say otherwise. */
  startupMs?: number;
  /** Each tasks.start and tasks.grade, unless the task's run_timeout_s says otherwise. */
  callMs?: number;
}

/** What the person explicitly allowed; both default to refusing. */
export interface RunConsent {
  /** Mount the Docker socket into a compose task's main service (local daemons only). */
  serviceAccess: boolean;
  /** Give a verifier that shares the actor's substrate its secrets anyway. */
  sharedSecrets: boolean;
}

/**
 * What a stored rollout's actor produced, for grading it again without its
 * agent (docs/grader-workbench.md). With a verifier and a recorded result
 * frame, no actor phase runs: the verifier gets that frame, exactly as it
 * did in the rollout. Otherwise the actor's first yield gets `answer`.
 */
export interface RecordedActor {
  answer: unknown;
  /** The actor's result frame as the verifier received it. */
  actorResult?: Record<string, unknown>;
  /** A Harbor trial's folder: its separate verifier checks the artifacts kept there. */
  trialDir?: string;
}

/** The error code of a verifier-only regrade whose task has no verifier any more. */
export const NO_VERIFIER_NOW = 'no-verifier';

/** An agent by name (`fixed`, `command`, `nop`, Harbor's `oracle`), or one the front end built (the ask agent). */
export type AgentRequest = { choice: AgentChoice } | { instance: Agent };

export interface TaskRunRequest {
  /** `PATH[::REF]` or a Harbor task directory, relative to `cwd`. */
  ref: string;
  cwd: string;
  /** The env.py of a .json/.jsonl task file (default: env.py beside it). */
  module?: string;
  /** auto | docker | local | tcp://HOST:PORT */
  runtime: string;
  /** The Docker endpoint (DOCKER_HOST syntax); default this process's DOCKER_HOST or the local socket. */
  dockerHost?: string;
  agent: AgentRequest;
  limits?: RunLimits;
  consent: RunConsent;
  /** Image for Docker substrates (wins over a Dockerfile). */
  image?: string;
  /** Who serves an env.py: the image's own HUD SDK when it can (`auto`), `bundled`, or only the `image`'s. */
  sdk?: SdkChoice;
  /** Relative to `cwd`; default `.hud-studio/traces`; null writes no trace (env.py tasks only). */
  traceDir?: string | null;
  /** Per-environment variables, by environment name. */
  credentials?: Record<string, Record<string, string>>;
  /** The judge model behind the verifier's model gateway (docs/models.md); none: no gateway. */
  judge?: ModelEndpoint;
  /** A regrade: what the stored rollout's actor produced (env.py tasks only). */
  recorded?: RecordedActor;
  /** Hosts added to a Harbor task's network policies for this run (Harbor's `--allow-*-host`; docs/harbor.md). */
  extraHosts?: ExtraHosts;
}

/** Where a run reports and what it shares with the other runs of its job. */
export interface RunContext {
  hub?: EventHub;
  signal?: AbortSignal;
  jobId?: string;
  /** The runtime a job picked once for all its runs; default: picked for this run. */
  selected?: SelectedProvider;
  /** The task as a job already discovered it (each file is discovered once). */
  task?: DiscoveredTask;
  /** One-line notices for the person (which runtime and why, task.toml warnings). */
  notice?: (line: string) => void;
  /** Takes the substrates' removals off the run's path; the caller waits for them (see AcquireOptions). */
  removeLater?: (removal: Promise<void>) => void;
  /**
   * The rollout's id, when its caller needs it before the first event (a
   * job, a regrade batch that made its substrates ahead); default: a fresh one.
   */
  rolloutId?: string;
}

export type RunTask = (request: TaskRunRequest, context?: RunContext) => Promise<FinishedRollout>;

export interface HarborRunRequest {
  /** Absolute path of the task directory (holds task.toml). */
  taskDir: string;
  cwd: string;
  /** The agent's name (oracle, nop, command, fixed); undefined = the runner's default. */
  agent: string | undefined;
  answer: string | undefined;
  command: string | undefined;
  /** The oracle runs this folder's solve.sh instead of the task's solution/ (docs/grader-workbench.md). */
  solution?: string;
  /** auto | docker | local | tcp://HOST:PORT */
  runtime: string;
  image: string | undefined;
  /** Relative to cwd; undefined = `.hud-studio/traces`. */
  traceDir: string | undefined;
  timeoutMs: number | undefined;
  signal: AbortSignal;
  hub: EventHub;
  /** One-line notices for the user (which runtime and why). */
  notice(line: string): void;
  /** The eval job this trial belongs to. */
  jobId?: string;
  /** The trial's rollout id, when the caller needs it before the first event (RunContext.rolloutId). */
  rolloutId?: string;
  /** Pass `${VAR}`-expanded verifier.env into a shared verifier's container (the user opted in). */
  allowSharedSecrets?: boolean;
  /** Run a compose file that gives a service the host (the user's service_access consent, composeHostAccess.ts). */
  allowServiceAccess?: boolean;
  /** Hosts added to the task's network policies (harbor/network.ts). */
  extraHosts?: ExtraHosts;
  /** The Docker endpoint the trial runs on (recorded in its trace). */
  dockerHost?: string;
  /**
   * A regrade (docs/grader-workbench.md): no agent runs; the task's separate
   * verifier checks the artifacts this stored trial folder kept. `agent` is
   * what the trace names in the agent's place.
   */
  stored?: { trialDir: string; agent: Agent };
}
