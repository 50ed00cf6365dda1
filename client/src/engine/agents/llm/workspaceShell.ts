/**
 * Where the model's `bash` and `editor` run (docs/models.md, "Which
 * capability the tools use"). In order of preference: the environment's
 * `ssh/2` workspace, the bundled runtime's `hud-studio-shell/1` workspace,
 * both reached through `tunnel.open`, and only when the environment
 * publishes neither, the provider's exec in the agent's seat.
 */
import type { AgentWorkspace } from '../agent';
import type { ExecResult } from '../../providers/provider';
import { AgentError } from '../command';
import { HUD_STUDIO_SHELL_PROTOCOL, SSH_PROTOCOL } from '../../capabilityProtocols';
import { connectStudioShell } from './studioShell';

export interface ShellRequest {
  /** A POSIX sh script; `args` are its $1, $2, ... */
  script: string;
  args: string[];
  stdin: string;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface WorkspaceShell {
  /** For the log and the trace: `ssh/2 capability "shell"`, `provider exec`, ... */
  readonly via: string;
  run(req: ShellRequest): Promise<ExecResult>;
  close(): Promise<void>;
}

type Binding = AgentWorkspace['bindings'][number];

export async function chooseShell(ws: AgentWorkspace, signal: AbortSignal): Promise<WorkspaceShell> {
  const ssh = ws.bindings.find((b) => b.protocol === SSH_PROTOCOL);
  const studio = ws.bindings.find((b) => b.protocol === HUD_STUDIO_SHELL_PROTOCOL);
  const chosen = ssh ?? studio;
  if (!chosen || !ws.openTunnel) return new ExecShell(ws);
  // A capability the environment publishes but that does not answer is the author's bug: say so instead of
  // quietly running the model's commands somewhere else.
  const sock = await tunnelTo(ws, chosen, signal);
  try {
    if (chosen !== ssh) return connectStudioShell(chosen, sock);
    // Loaded only for an ssh/2 workspace (dockerode loads ssh2 too, but only for ssh:// daemons).
    const { connectSshShell } = await import('./sshShell');
    return await connectSshShell(chosen, sock, signal);
  } catch (err) {
    sock.destroy();
    if (err instanceof AgentError || signal.aborted) throw err;
    throw new AgentError(
      `cannot use capability "${chosen.name}" (${chosen.protocol}) for the model's tools: ${(err as Error).message}`,
      'check the daemon the environment starts for this capability',
    );
  }
}

async function tunnelTo(ws: AgentWorkspace, b: Binding, signal: AbortSignal) {
  try {
    return await ws.openTunnel!(b.name, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    throw new AgentError(
      `cannot open a tunnel to capability "${b.name}" (${b.protocol}): ${(err as Error).message}`,
      'check that the daemon behind the capability is listening at the published url',
    );
  }
}

/** Quotes one word for a POSIX shell. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The request as one command line, for shells that take a string (ssh exec, the bundled shell). */
export function commandLine(req: Pick<ShellRequest, 'script' | 'args'>, cwd?: string): string {
  const run = ['/bin/sh', '-c', req.script, 'sh', ...req.args].map(shellQuote).join(' ');
  return cwd ? `cd ${shellQuote(cwd)} && exec ${run}` : `exec ${run}`;
}

/** No shell capability: the provider runs the command in the agent's seat. */
class ExecShell implements WorkspaceShell {
  readonly via = 'provider exec';
  constructor(private readonly ws: AgentWorkspace) {}

  run(req: ShellRequest): Promise<ExecResult> {
    return this.ws.exec(['/bin/sh', '-c', req.script, 'sh', ...req.args], {
      cwd: this.ws.workdir,
      signal: req.signal,
      stdin: req.stdin,
      timeoutMs: req.timeoutMs,
    });
  }

  async close(): Promise<void> {}
}
