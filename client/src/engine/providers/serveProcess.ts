/**
 * Starting `python3 -m hud.environment.server` and waiting for the one line
 * that says where it listens (`HUD_SERVE_PORT=<port>`). Shared by providers
 * that run the server as a local child process.
 */
import type { ChildProcess } from 'node:child_process';
import { CancelledError, HudStudioError, TimeoutError } from '../errors';
import { LineSplitter } from '../output/lineSplitter';
import type { ServeOptions } from './provider';

export const DEFAULT_STARTUP_TIMEOUT_MS = 60_000;
const PORT_LINE = /^HUD_SERVE_PORT=(\d+)\s*$/;

/**
 * The bundled runtime serving. It keeps stdout for the port line alone, so
 * an environment that prints `HUD_SERVE_PORT=...` cannot point the engine
 * elsewhere (docs/reliability.md). An image's own SDK (imageServeArgv) prints
 * the port among its other output, as HUD's does.
 */
export function serveArgv(envPath: string, envName: string, python = 'python3'): string[] {
  return [python, '-m', 'hud.environment.server', ...serverArgs(envPath, envName), '--port-stdout-only'];
}

function serverArgs(envPath: string, envName: string): string[] {
  return [envPath, '--env', envName, '--host', '127.0.0.1', '--port', '0'];
}

/**
 * Loads HUD Studio's helpers by file from the first folder of argv[1] that
 * exists (the bundled `hud` beside them must not shadow the image's), then
 * serves through hud_studio.image_sdk_serve. No helpers: exit, never serve
 * unguarded.
 */
const GUARDED_LOADER = [
  'import importlib.util, json, os, sys',
  'dirs = [d for d in json.loads(sys.argv[1]) if os.path.isfile(os.path.join(d, "__init__.py"))]',
  'if not dirs:',
  '    sys.exit("HUD Studio helpers not found in " + sys.argv[1])',
  'spec = importlib.util.spec_from_file_location("hud_studio", os.path.join(dirs[0], "__init__.py"), submodule_search_locations=[dirs[0]])',
  'module = importlib.util.module_from_spec(spec)',
  'sys.modules["hud_studio"] = module',
  'spec.loader.exec_module(module)',
  'from hud_studio.image_sdk_serve import main',
  'main(sys.argv[2:])',
].join('\n');

/**
 * The image's (or local python's) own SDK serving, behind the loopback peer
 * check (docs/security.md): `helperDirs` are candidate `hud_studio` folders
 * as the server sees them.
 */
export function imageServeArgv(envPath: string, envName: string, helperDirs: string[], python = 'python3'): string[] {
  return [python, '-c', GUARDED_LOADER, JSON.stringify(helperDirs), ...serverArgs(envPath, envName)];
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
    const timer = setTimeout(
      () => settle(() => reject(new TimeoutError(`starting the ${opts.envName} server`, timeoutMs))),
      timeoutMs,
    );
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    if (opts.signal?.aborted) onAbort();

    let port: number | undefined;
    const stdout = new LineSplitter((line) => {
      const m = port === undefined ? PORT_LINE.exec(line) : null;
      if (m) {
        port = Number(m[1]);
        settle(() => resolve(port!));
      } else opts.log('stdout', line);
    });
    const stderr = new LineSplitter((line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      opts.log('stderr', line);
    });
    child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    // The last line a process writes may have no newline; it is still part of the log.
    child.stdout?.on('end', () => stdout.end());
    child.stderr?.on('end', () => stderr.end());
    child.on('error', (err) =>
      settle(() =>
        reject(
          new HudStudioError('provider', `cannot start python3: ${err.message}`, {
            hint: 'install Python 3.9+ as python3 on PATH',
          }),
        ),
      ),
    );
    child.on('close', (code, signal) =>
      settle(() =>
        reject(
          new HudStudioError(
            'provider',
            `the ${opts.envName} server exited (${signal ?? `code ${code}`}) before it was ready${tail.length ? `:\n${tail.join('\n')}` : ''}`,
            {
              hint: 'run the environment by hand with `python3 -m hud.environment.server ENV_PY --env NAME` to see the full error',
            },
          ),
        ),
      ),
    );
  });
}
