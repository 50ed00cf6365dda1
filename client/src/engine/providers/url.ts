/**
 * Url provider: attach to a server somebody else runs (`tcp://host:port`, a
 * real `hud serve` or ours). Nothing is started or stopped, files cannot be
 * moved and commands cannot run there, and every phase gets the same live
 * server, so a verifier may see whatever the actor left behind: the trace
 * says the substrate was borrowed.
 */
import type { Duplex } from 'node:stream';
import { connectTcp } from '../channel/tcp';
import { HudStudioError, UsageError } from '../errors';
import type { SubstrateInfo } from '../../../../common/trace/schema';
import type { AcquireOptions, EnvironmentSpec, ExecResult, Provider, ServeOptions, Substrate } from './provider';

export class UnsupportedOperationError extends HudStudioError {
  constructor(operation: string, address: string) {
    super('provider', `${operation} is not possible on the borrowed server ${address}`, {
      hint: 'the task or agent needs a runtime that can run commands and copy files',
      fix: { kind: 'runtime', use: 'docker-or-local' },
    });
  }
}

export function parseTcpAddress(text: string): { host: string; port: number } {
  const m = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):(\d{1,5})\/?$/.exec(text.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || port < 1 || port > 65535) {
    throw new UsageError(`"${text}" is not a tcp://HOST:PORT address`, { hint: 'e.g. tcp://127.0.0.1:8765' });
  }
  const host = m[1]!.startsWith('[') ? m[1]!.slice(1, -1) : m[1]!;
  return { host, port };
}

export class UrlProvider implements Provider {
  readonly kind = 'url' as const;
  readonly host: string;
  readonly port: number;

  constructor(readonly address: string) {
    ({ host: this.host, port: this.port } = parseTcpAddress(address));
  }

  async acquire(_spec: EnvironmentSpec, opts: AcquireOptions): Promise<Substrate> {
    opts.log(
      'engine',
      `borrowed substrate: attaching to the running server at ${this.address} (not started or stopped by HUD Studio)`,
    );
    return new BorrowedSubstrate(this.host, this.port, this.address);
  }
}

class BorrowedSubstrate implements Substrate {
  readonly info: SubstrateInfo;
  readonly envPath = '';
  readonly workdir = '';

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly address: string,
  ) {
    this.info = { id: address, provider: 'url', isolation: 'borrowed', address };
  }

  execPython(): Promise<ExecResult> {
    return Promise.reject(new UnsupportedOperationError('running python3', this.address));
  }
  exec(): Promise<ExecResult> {
    return Promise.reject(new UnsupportedOperationError('running a command', this.address));
  }
  async serve(opts: ServeOptions): Promise<void> {
    opts.log('engine', `using the borrowed server's environment (expected "${opts.envName}")`);
  }
  openChannel(signal?: AbortSignal): Promise<Duplex> {
    return connectTcp(this.host, this.port, signal ? { signal } : {});
  }
  copyIn(): Promise<void> {
    return Promise.reject(new UnsupportedOperationError('copying files in', this.address));
  }
  copyOut(): Promise<void> {
    return Promise.reject(new UnsupportedOperationError('copying files out', this.address));
  }
  async release(): Promise<void> {
    // Borrowed: the owner of the server decides when it stops.
  }
}
