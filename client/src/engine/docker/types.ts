/**
 * The Docker layer's contract, used by the Docker provider (env.py tasks)
 * and the Harbor runner alike. Everything the engine starts carries
 * {@link LABELS}; removal of leftovers keys on the owner pid + host.
 */
import type { ExecOptions, ExecResult } from '../providers/provider';

export const LABELS = {
  managed: 'dev.hud-studio.managed',
  rollout: 'dev.hud-studio.rollout',
  phase: 'dev.hud-studio.phase',
  ownerHost: 'dev.hud-studio.owner-host',
  ownerPid: 'dev.hud-studio.owner-pid',
  contextHash: 'dev.hud-studio.context-hash',
  /** What a network of the engine's is for (`rollouts`, `egress`), so it can be told from the user's. */
  network: 'dev.hud-studio.network',
} as const;

/** Harbor's network modes plus Docker's own names. */
export type NetworkMode = 'public' | 'no-network' | 'none' | 'bridge';

export interface ContainerSpec {
  image: string;
  rolloutId: string;
  phase: string;
  /** Default: keep the container alive (`sleep infinity`) and exec into it. */
  cmd?: string[];
  /**
   * Attach to the container's own process (stdin, stdout, stderr) before it
   * starts, as `docker run -i` does, and take it with `takeMain`; its output
   * then goes to the engine only, never to a Docker log.
   */
  attach?: boolean;
  env?: Record<string, string>;
  workdir?: string;
  user?: string;
  network?: NetworkMode;
  /** A network the caller made (an allowlist's internal one, docker/egressProxy.ts): joined instead of `network`. */
  networkName?: string;
  /** resolv.conf options (`timeout:1`). */
  dnsOptions?: string[];
  cpus?: number;
  memoryMb?: number;
  /** Processes and threads the whole container may hold (the cgroup's pids limit). */
  pidsLimit?: number;
  /** Needs daemon support (xfs quota); the layer warns when it cannot apply it. */
  storageMb?: number;
  /** Needs a GPU runtime; the layer warns when it cannot apply it. */
  gpus?: number | 'all';
  /** Host paths mounted read-write; only ever with the user's consent. */
  binds?: string[];
  /**
   * Host folders mounted read-only (`source` as the daemon sees it). Unlike
   * `binds`, a source the daemon cannot find fails the create instead of
   * being made empty on the daemon's host.
   */
  readOnlyMounts?: { source: string; target: string }[];
  extraLabels?: Record<string, string>;
  /** Setuid programs in the image grant nothing (an unprivileged agent stays unprivileged). */
  noNewPrivileges?: boolean;
  /**
   * Join the processes of this container (its id) instead of having its own: its first process is then PID 1,
   * and `/proc/1/root` that container's file system with its mounts. The container gets no init of its own.
   */
  processesOf?: string;
  /** Capabilities beyond Docker's default set (`SYS_PTRACE`). */
  capAdd?: string[];
}

export interface BuildRequest {
  contextDir: string;
  /** Relative to contextDir; default `Dockerfile`. */
  dockerfile?: string;
  /** Tag to give the result; default derived from the context hash. */
  tag?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  onLog?: (line: string) => void;
}

export interface BuildResult {
  tag: string;
  imageId: string;
  /** True when an image for the same context hash already existed. */
  cached: boolean;
}

/** A command still running in a container (see {@link ManagedContainer.spawn}). */
export interface RunningExec {
  /** Settles when the command ends or is killed; never rejects for a non-zero exit. */
  readonly done: Promise<ExecResult>;
  /**
   * Settles when the command's output ends (it exited), before `done`, which
   * then asks the daemon for the exit code: for callers that only wait.
   */
  readonly outputEnded?: Promise<void>;
  /** Signals the command's process group (and any process that inherited its marker). */
  kill(signal?: 'TERM' | 'KILL' | 'INT'): Promise<void>;
}

export interface ManagedContainer {
  readonly id: string;
  readonly image: string;
  readonly imageId: string;
  /** Docker network mode the container runs with (`bridge`, `none`). */
  readonly network: string;
  /** Warnings about limits that could not be applied (never silently dropped). */
  readonly warnings: string[];
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  /** Starts a command and returns at once (servers, background agents); `opts.timeoutMs` still applies. */
  spawn(argv: string[], opts?: ExecOptions): Promise<RunningExec>;
  /** Copies a host file or folder to `dest` (a folder path) inside the container, creating it. */
  copyIn(hostPath: string, dest: string): Promise<void>;
  /** Copies container path `src` into host folder `hostDir`. */
  copyOut(src: string, hostDir: string): Promise<void>;
  /** Force-removes the container (and its anonymous volumes). Idempotent. */
  remove(): Promise<void>;
}
