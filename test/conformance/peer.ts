/**
 * The real HUD SDK (hud-python v6) as a peer to compare with: where it is,
 * how to make it importable on the host (its setup.sh prints the PYTHONPATH),
 * and how to serve an env file with it. A missing peer fails the suite.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const REPO_ROOT = resolve(__dirname, '..', '..');

export function peerRoot(): string {
  const candidates = [
    process.env['HUD_SDK_PEER'],
    join(REPO_ROOT, '..', 'shared', 'peers', 'hud-python'),
    join(REPO_ROOT, '..', '..', 'shared', 'peers', 'hud-python'),
  ].filter((c): c is string => !!c);
  const found = candidates.find((c) => existsSync(join(c, 'setup.sh')) && existsSync(join(c, 'src', 'hud')));
  if (!found) throw new Error(`the HUD SDK peer was not found (looked in ${candidates.join(', ')}); set HUD_SDK_PEER`);
  return found;
}

let pythonPath: string | undefined;

/** PYTHONPATH that makes the peer importable (runs its setup.sh once). */
export function peerPythonPath(): string {
  if (pythonPath) return pythonPath;
  const out =
    execFileSync('bash', [join(peerRoot(), 'setup.sh')], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1) ?? '';
  const m = /^PYTHONPATH=(.+)$/.exec(out);
  if (!m?.[1]) throw new Error(`the peer's setup.sh printed no PYTHONPATH: ${out}`);
  pythonPath = m[1];
  return pythonPath;
}

export interface Served {
  child: ChildProcess;
  address: string;
}

/** Serves environment `envName` of `envFile` with `python3 -m hud.environment.server` on PYTHONPATH `path`. */
export async function serve(envFile: string, envName: string, path: string, cwd: string): Promise<Served> {
  const child = spawn('python3', ['-m', 'hud.environment.server', envFile, '--env', envName, '--port', '0'], {
    cwd,
    env: { ...process.env, PYTHONPATH: path, PYTHONDONTWRITEBYTECODE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
  const port = await new Promise<number>((ok, fail) => {
    createInterface({ input: child.stdout }).on('line', (l) => {
      const m = /^HUD_SERVE_PORT=(\d+)$/.exec(l);
      if (m) ok(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`server for ${envName} exited ${code}: ${stderr.join('')}`)));
  });
  return { child, address: `tcp://127.0.0.1:${port}` };
}

/** Stops a served environment and waits until it is gone. */
export async function stop(served: Served): Promise<void> {
  if (served.child.exitCode !== null || served.child.signalCode !== null) return;
  const gone = new Promise((r) => served.child.once('exit', r));
  served.child.kill('SIGTERM');
  await gone;
}
