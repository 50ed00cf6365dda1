/**
 * Starting `python3 -m hud.environment.server` and waiting for the one line
 * that says where it listens (`HUD_SERVE_PORT=<port>`). Shared by providers
 * that run the server as a local child process.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CancelledError, HudStudioError, TimeoutError } from '../errors';
import type { ServeOptions } from './provider';

export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
const PORT_LINE = /^HUD_SERVE_PORT=(\d+)\s*$/;

export function serveArgv(envPath: string, envName: string, python = 'python3'): string[] {
  return [python, '-m', 'hud.environment.server', envPath, '--env', envName, '--host', '127.0.0.1', '--port', '0'];
}

/**
 * Resolves with the port once the server printed it. Every output line goes
 * to `opts.log` for the whole life of the process (server logs belong to the
 * trace). Rejects, naming the server's last stderr lines, if it exits first.
 */
export function waitForServePort(child: ChildProcess, opts: ServeOptions): Promise<number> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS;
  const tail: string[] = [];
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = (): void => settle(() => reject(new CancelledError('serve')));
    const timer = setTimeout(() => settle(() => reject(new TimeoutError(`starting the ${opts.envName} server`, timeoutMs))), timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    if (child.stdout) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const m = PORT_LINE.exec(line);
        if (m) settle(() => resolve(Number(m[1])));
        else opts.log('stdout', line);
      });
    }
    if (child.stderr) {
      createInterface({ input: child.stderr }).on('line', (line) => {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        opts.log('stderr', line);
      });
    }
    child.on('error', (err) =>
      settle(() => reject(new HudStudioError('provider', `cannot start python3: ${err.message}`, { hint: 'install Python 3.9+ as python3 on PATH' }))),
    );
    child.on('close', (code, signal) =>
      settle(() =>
        reject(
          new HudStudioError(
            'provider',
            `the ${opts.envName} server exited (${signal ?? `code ${code}`}) before it was ready${tail.length ? `:\n${tail.join('\n')}` : ''}`,
            { hint: 'run the environment by hand with `python3 -m hud.environment.server ENV_PY --env NAME` to see the full error' },
          ),
        ),
      ),
    );
  });
}
