/**
 * What the CLI (and the extension) hand to a runner that is not an env.py
 * rollout: the Harbor runner (`harbor/run.ts`, `runHarborTask`) takes this
 * request and resolves with the same RolloutOutcome as runRollout, so the
 * CLI's output, JSON and exit codes are identical for both worlds.
 */
import type { EventHub } from './events';
import type { RolloutOutcome } from './rollout';

export interface HarborRunRequest {
  /** Absolute path of the task directory (holds task.toml). */
  taskDir: string;
  cwd: string;
  /** `--agent` as typed (oracle, nop, command, fixed...); undefined = the runner's default. */
  agent: string | undefined;
  answer: string | undefined;
  command: string | undefined;
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
  /** Pass `${VAR}`-expanded verifier.env into a shared verifier's container (the user opted in). */
  allowSharedSecrets?: boolean;
}

export type RunHarborTask = (request: HarborRunRequest) => Promise<RolloutOutcome>;
