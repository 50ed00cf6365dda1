/**
 * The model's shell over the bundled runtime's `hud-studio-shell/1`
 * workspace (docs/sdk-compatibility.md): JSON lines on a tunnel, one reply
 * per request, in order. Commands run in the workspace root there.
 */
import type { Duplex } from 'node:stream';
import type { AgentWorkspace } from '../agent';
import type { ExecResult } from '../../providers/provider';
import { HUD_STUDIO_SHELL_PROTOCOL } from '../../capabilityProtocols';
import { AgentError } from '../command';
import { commandLine, type ShellRequest, type WorkspaceShell } from './workspaceShell';

type Binding = AgentWorkspace['bindings'][number];

interface Reply {
  id?: unknown;
  exit_code?: number | null;
  stdout?: string;
  stderr?: string;
  timed_out?: boolean;
  error?: string;
}

export function connectStudioShell(b: Binding, sock: Duplex): WorkspaceShell {
  return new StudioShell(sock, `${HUD_STUDIO_SHELL_PROTOCOL} capability "${b.name}"`);
}

class StudioShell implements WorkspaceShell {
  private buffered = '';
  private nextId = 1;
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | undefined;
  private gone: Error | undefined;

  constructor(
    private readonly sock: Duplex,
    readonly via: string,
  ) {
    sock.setEncoding('utf8');
    sock.on('data', (chunk: string) => this.onData(chunk));
    const end = (why: string): void => {
      this.gone ??= new AgentError(`the ${via} connection ${why}`);
      this.waiting?.reject(this.gone);
      this.waiting = undefined;
    };
    sock.on('end', () => end('closed'));
    sock.on('close', () => end('closed'));
    sock.on('error', (err) => end(`broke: ${err.message}`));
    sock.resume();
  }

  private onData(chunk: string): void {
    this.buffered += chunk;
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      const w = this.waiting;
      this.waiting = undefined;
      try {
        w?.resolve(JSON.parse(line) as Reply);
      } catch {
        w?.reject(new AgentError(`the ${this.via} sent a line that is not JSON: ${line.slice(0, 200)}`));
      }
    }
  }

  async run(req: ShellRequest): Promise<ExecResult> {
    if (this.gone) throw this.gone;
    const id = this.nextId++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.waiting = { resolve, reject };
      const onAbort = (): void => {
        // The protocol has no cancel: dropping the connection is how the server learns to stop.
        this.sock.destroy();
        reject(new AgentError(`cancelled while the ${this.via} ran a command`));
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      const settle =
        <T>(f: (v: T) => void) =>
        (v: T) => {
          req.signal.removeEventListener('abort', onAbort);
          f(v);
        };
      this.waiting = { resolve: settle(resolve), reject: settle(reject) };
      const request = { id, command: commandLine(req), timeout: req.timeoutMs / 1000, stdin: req.stdin };
      this.sock.write(`${JSON.stringify(request)}\n`);
    });
    if (reply.error !== undefined) throw new AgentError(`the ${this.via} rejected a command: ${reply.error}`);
    return {
      exitCode: typeof reply.exit_code === 'number' ? reply.exit_code : null,
      stdout: reply.stdout ?? '',
      stderr: reply.stderr ?? '',
      timedOut: reply.timed_out === true,
    };
  }

  async close(): Promise<void> {
    this.sock.end();
  }
}
