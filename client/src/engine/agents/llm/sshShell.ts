/**
 * The model's shell over an environment's `ssh/2` workspace (the HUD SDK's
 * `env.workspace()`), with the `ssh2` client on a tunnel stream. The binding
 * carries what the client needs (docs/sdk-compatibility.md): `user`,
 * `host_pubkey` (checked: the daemon must hold that key), `client_key` (the
 * private key's text) and `cwd`, where commands start.
 */
import type { Duplex } from 'node:stream';
import { Client } from 'ssh2';
import type { AgentWorkspace } from '../agent';
import type { ExecResult } from '../../providers/provider';
import { AgentError } from '../command';
import { commandLine, type ShellRequest, type WorkspaceShell } from './workspaceShell';

/** Per stream: a command that prints more only keeps its last bytes, as the bundled shell does. */
const OUTPUT_CAP = 1024 * 1024;
const HANDSHAKE_MS = 30_000;

type Binding = AgentWorkspace['bindings'][number];

export async function connectSshShell(b: Binding, sock: Duplex, signal: AbortSignal): Promise<WorkspaceShell> {
  const user = typeof b.params['user'] === 'string' ? b.params['user'] : 'agent';
  const key = b.params['client_key'];
  if (typeof key !== 'string' || !key) {
    const why =
      typeof b.params['client_key_path'] === 'string'
        ? 'it names a client_key_path, which only a client on the daemon’s own file system can read'
        : 'it has no client_key';
    throw new AgentError(
      `the ssh/2 binding "${b.name}" cannot be used from HUD Studio: ${why}`,
      'publish the private key text as client_key (Capability.ssh(..., client_key=...))',
    );
  }
  const shell = b.params['shell'];
  if (shell === 'cmd' || shell === 'powershell') {
    throw new AgentError(
      `the ssh/2 binding "${b.name}" has a ${shell} shell; the model's bash and editor need a POSIX shell`,
      'serve the workspace from a Linux or macOS substrate',
    );
  }
  const hostKey = publicKeyBlob(b.params['host_pubkey']);
  if (!hostKey) {
    throw new AgentError(
      `the ssh/2 binding "${b.name}" has no usable host_pubkey ("TYPE BASE64" as in a .pub file)`,
      'publish the daemon’s public host key as host_pubkey',
    );
  }
  const client = new Client();
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => {
      client.end();
      reject(new Error('cancelled'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    client.once('ready', () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    client.once('error', (err) => {
      signal.removeEventListener('abort', onAbort);
      reject(err);
    });
    client.connect({
      sock,
      username: user,
      privateKey: key,
      // The daemon must prove it holds the published host key: a tunnel is not an authenticated path.
      hostVerifier: (blob: Buffer) => blob.equals(hostKey),
      readyTimeout: HANDSHAKE_MS,
    });
    // ssh2 listens now (openTunnel hands streams over paused).
    sock.resume();
  });
  const cwd = typeof b.params['cwd'] === 'string' && b.params['cwd'] ? b.params['cwd'] : undefined;
  return new SshShell(client, `ssh/2 capability "${b.name}" (user ${user})`, cwd);
}

function publicKeyBlob(v: unknown): Buffer | undefined {
  if (typeof v !== 'string') return undefined;
  const b64 = v.trim().split(/\s+/)[1];
  if (!b64) return undefined;
  const blob = Buffer.from(b64, 'base64');
  return blob.length ? blob : undefined;
}

class SshShell implements WorkspaceShell {
  private closed = false;
  constructor(
    private readonly client: Client,
    readonly via: string,
    private readonly cwd: string | undefined,
  ) {
    // After the handshake an error means the connection is gone; the next run() reports it.
    client.on('error', () => (this.closed = true));
    client.on('close', () => (this.closed = true));
  }

  run(req: ShellRequest): Promise<ExecResult> {
    if (this.closed) return Promise.reject(new AgentError(`the ${this.via} connection closed`));
    return new Promise<ExecResult>((resolve, reject) => {
      this.client.exec(commandLine(req, this.cwd), (err, stream) => {
        if (err) return reject(new AgentError(`${this.via} refused a command: ${err.message}`));
        let stdout = '';
        let stderr = '';
        let exitCode: number | null = null;
        let timedOut = false;
        const keep = (acc: string, chunk: Buffer): string => {
          const s = acc + chunk.toString('utf8');
          return s.length > OUTPUT_CAP ? s.slice(s.length - OUTPUT_CAP) : s;
        };
        // OpenSSH delivers signal requests to the command; closing the channel makes sure nothing waits on it.
        const stop = (): void => {
          stream.signal('KILL');
          stream.close();
        };
        const timer = setTimeout(() => {
          timedOut = true;
          stop();
        }, req.timeoutMs);
        req.signal.addEventListener('abort', stop, { once: true });
        stream.on('data', (c: Buffer) => (stdout = keep(stdout, c)));
        stream.stderr.on('data', (c: Buffer) => (stderr = keep(stderr, c)));
        stream.on('exit', (code: number | null) => (exitCode = typeof code === 'number' ? code : null));
        stream.on('close', () => {
          clearTimeout(timer);
          req.signal.removeEventListener('abort', stop);
          resolve({ exitCode: timedOut ? null : exitCode, stdout, stderr, timedOut });
        });
        stream.end(req.stdin);
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.client.end();
  }
}
