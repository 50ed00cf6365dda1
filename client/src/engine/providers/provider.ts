/**
 * A provider hands out substrates: somewhere an environment's server runs
 * (a container, a local process group, a borrowed tcp:// server). The engine
 * only ever talks to this interface, so the actor/verifier rules in
 * rollout.ts hold for every provider alike.
 */
import type { Duplex } from 'node:stream';
import type { RuntimeConfig } from '../runtimeConfig';
import type { LogStream, PhaseName, SubstrateInfo } from '../../../../common/trace/schema';
import type { SdkChoice } from './servingSdk';
import type { TurnEndCheck } from './turnEndCheck';

export type ProviderKind = 'docker' | 'local' | 'url';

export type { RuntimeConfig } from '../runtimeConfig';

/** What to run: one environment of one `env.py`. */
export interface EnvironmentSpec {
  /** Absolute host path of the Python module (env.py). */
  envFile: string;
  /** Absolute host folder copied into the substrate (the env file's folder). */
  envDir: string;
  /** `runtime_config` of the task being run there (null: provider defaults). */
  runtimeConfig: RuntimeConfig | null;
  /** Image override (CLI `--image`, setting), wins over the Dockerfile. */
  image?: string;
  /** Serve with the SDK installed in the image instead of the bundled runtime (same as `sdk: 'image'`). */
  useImageSdk?: boolean;
  /** Who serves: the image's own HUD SDK when it can (`auto`, default), always `bundled`, or only the `image`'s. */
  sdk?: SdkChoice;
}

export interface AcquireOptions {
  rolloutId: string;
  phase: PhaseName;
  signal?: AbortSignal;
  /** Provider/setup output, recorded in the phase's logs. */
  log: (stream: LogStream, text: string) => void;
  /** Budget for getting the substrate ready (build + start). */
  startupTimeoutMs?: number;
  /**
   * When set, release() returns once the server has stopped and hands the
   * substrate's removal over to this, for the caller to wait for before it
   * ends (a job: the next rollout starts while the last one's container goes).
   */
  removeLater?: (removal: Promise<void>) => void;
  /** Records a stretch of the provider's work on this substrate, until its release (trace `spans`). */
  span?: SpanRecorder;
}

/** A named stretch of work from `start` to `end`, both `performance.now()` of this process. */
export type SpanRecorder = (name: string, start: number, end: number) => void;

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string>;
  user?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  stdin?: string;
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
}

export interface ExecResult {
  /** null when killed (timeout or cancel). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/**
 * The variable through which the server learns the agent's workspace root
 * (docs/sdk-compatibility.md): the bundled runtime's `env.workspace(root)`
 * serves that folder, so what the environment prepares in `ws.root` is where
 * the agent's commands run.
 */
export const AGENT_WORKSPACE_ENV = 'HUD_STUDIO_AGENT_WORKSPACE';

export interface ServeOptions {
  /** Environment name to serve (`--env NAME`). */
  envName: string;
  /** Variables for this environment only (credentials): the server process gets them, nothing else. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  log: (stream: LogStream, text: string) => void;
}

/**
 * Where an agent (the command agent, a model's tools) works in the actor
 * substrate: as a user that cannot read the environment's files nor touch
 * the server and its control channel, where the provider can make one
 * (docs/security.md).
 */
export interface AgentSeat {
  /** The agent's own working folder (the workspace root), writable by it. */
  readonly workdir: string;
  /** True when the agent runs with the server's privileges: its actor grade is then forgeable. */
  readonly privileged: boolean;
  /** Why the seat is privileged (shown with the forgeable mark). */
  readonly privilegedWhy?: string;
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  copyIn(hostPath: string, dest: string): Promise<void>;
  /**
   * Ends the agent's turn: every process it started, however it detached, is
   * gone, and then what it left for the graders is checked (turnEndCheck.ts):
   * the links a grader must not follow for it are removed, its hard-linked
   * files in shared folders copied apart, and the folders where the graders look programs up
   * that it could change are reported; resolves with that. A privileged seat
   * checks nothing: its agent could do everything the server can.
   */
  end(): Promise<TurnEndCheck>;
}

export interface Substrate {
  readonly info: SubstrateInfo;
  /** Path of the env file as seen inside the substrate. */
  readonly envPath: string;
  /** Working folder inside the substrate (the copy of envDir). */
  readonly workdir: string;
  /** Runs `python3 ARGS` with the bundled runtime importable (discovery, helpers). */
  execPython(args: string[], opts?: ExecOptions): Promise<ExecResult>;
  /** Runs a command (argv) in the substrate. */
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  /** Starts the environment's control-channel server; resolves once it printed HUD_SERVE_PORT. */
  serve(opts: ServeOptions): Promise<void>;
  /** A new byte stream to the served control channel (through the substrate's own loopback). */
  openChannel(signal?: AbortSignal): Promise<Duplex>;
  /** Copies a host file or folder to `dest` inside the substrate. */
  copyIn(hostPath: string, dest: string): Promise<void>;
  /** Copies `src` from the substrate to a host folder. */
  copyOut(src: string, hostDir: string): Promise<void>;
  /** The agent's seat; without one the agent runs like the server (privileged). */
  agentSeat?(): AgentSeat;
  /** Stops the server (SIGTERM, so teardown runs) and frees everything. Idempotent. */
  release(): Promise<void>;
  /**
   * Stops the server as release() does (its teardown runs and is logged) but
   * keeps the substrate; release() then only frees it. Where a provider has
   * it, a batch frees the substrate in the background (docs/grader-workbench.md).
   */
  stopServer?(): Promise<void>;
}

export interface Provider {
  readonly kind: ProviderKind;
  /**
   * True when the substrate it would hand out for `spec` offers nothing that an agent in
   * another of its substrates could reach before its server is started
   * (own file system, processes and loopback). The verifier's substrate is
   * then acquired while the actor works instead of after (docs/engine.md).
   */
  isolatesSubstrates?(spec: EnvironmentSpec): boolean;
  acquire(spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate>;
}
