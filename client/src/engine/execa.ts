/**
 * execa runs the engine's child processes (local servers and their process
 * groups, discovery, the Compose CLI): cancellation by AbortSignal, no
 * inherited environment unless asked, and results that carry stderr. It
 * ships only ESM and the engine compiles to CommonJS, so it is loaded once
 * with import(). See `docs/engine.md`, "Child processes".
 */
type Execa = typeof import('execa');

let loading: Promise<Execa> | undefined;

export function loadExeca(): Promise<Execa> {
  loading ??= import('execa');
  return loading;
}

export interface ToolResult {
  /** null when it was killed (timeout, cancel) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
  /** Why it could not start (e.g. ENOENT), when it could not. */
  spawnError: string | undefined;
}

/**
 * Runs a command-line tool (not a process group: tools like the Compose CLI
 * end their own work on SIGTERM) with exactly `env`; a timeout or `signal`
 * sends SIGTERM, then SIGKILL after `killAfterMs`.
 */
export async function runTool(
  argv: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number; signal?: AbortSignal; killAfterMs?: number },
): Promise<ToolResult> {
  const [cmd, ...args] = argv;
  if (!cmd) throw new Error('empty command');
  const { execa } = await loadExeca();
  const r = await execa(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: false,
    stdin: 'ignore',
    reject: false,
    stripFinalNewline: false,
    timeout: opts.timeoutMs,
    forceKillAfterDelay: opts.killAfterMs ?? 5_000,
    ...(opts.signal ? { cancelSignal: opts.signal } : {}),
  });
  const spawnError =
    r.exitCode === undefined && !r.isTerminated && !r.isCanceled && !r.timedOut
      ? (r.originalMessage ?? r.shortMessage)
      : undefined;
  return {
    exitCode: r.exitCode ?? null,
    stdout: typeof r.stdout === 'string' ? r.stdout : '',
    stderr: typeof r.stderr === 'string' ? r.stderr : '',
    timedOut: r.timedOut,
    cancelled: r.isCanceled,
    spawnError,
  };
}

/**
 * Why a tool that did not succeed ended, as a phrase after its command line ("`docker compose up` exited with
 * code 1"), and the last `lines` lines of what it printed, stderr first.
 */
export function toolFailure(r: ToolResult, timeoutMs: number, lines: number): { why: string; tail: string } {
  const why = r.spawnError
    ? `could not start (${r.spawnError})`
    : r.timedOut
      ? `timed out after ${timeoutMs / 1000} s`
      : r.exitCode === null
        ? 'was killed'
        : `exited with code ${r.exitCode}`;
  return { why, tail: `${r.stderr}\n${r.stdout}`.trim().split('\n').slice(-lines).join('\n') };
}
