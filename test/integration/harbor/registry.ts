/**
 * A real registry on 127.0.0.1 for the pull tests: Debian's docker-registry
 * (the reference implementation), private storage, no auth, stopped by the
 * test that started it. Docker treats 127.0.0.0/8 registries as insecure-OK.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerClient } from '../../../client/src/engine/docker/client';

export interface LocalRegistry {
  /** `127.0.0.1:<port>` */
  host: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export async function startRegistry(): Promise<LocalRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'hs-registry-'));
  const port = await freePort();
  const config = join(dir, 'config.yml');
  writeFileSync(
    config,
    [
      'version: 0.1',
      'log:',
      '  level: warn',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${join(dir, 'data')}`,
      'http:',
      `  addr: 127.0.0.1:${port}`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const host = `127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  // Wait for what is observable: the registry answering its API root.
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${stderr}`);
    const ok = await fetch(`http://${host}/v2/`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`docker-registry did not answer on ${host} within 30 s: ${stderr}`);
    }
    await new Promise((r) => setImmediate(r));
  }
  return {
    host,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Tags `source` as `target`, pushes it, then removes the local tag (the layers stay, under other tags). */
export async function pushAndForget(source: string, target: string): Promise<void> {
  const docker = dockerClient();
  const [repo, tag] = splitTag(target);
  await docker.getImage(source).tag({ repo, tag });
  // Newer daemons want an X-Registry-Auth header even for a registry without auth.
  const stream = await docker.getImage(target).push({ authconfig: {} });
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, events: { error?: string }[]) => {
      const failed = err?.message ?? events.find((e) => e.error)?.error;
      if (failed) reject(new Error(`push ${target}: ${failed}`));
      else resolve();
    }),
  );
  await docker.getImage(target).remove({ noprune: true });
}

export async function removeImageQuietly(image: string): Promise<void> {
  await dockerClient()
    .getImage(image)
    .remove({ noprune: true })
    .catch(() => undefined);
}

function splitTag(ref: string): [string, string] {
  const at = ref.lastIndexOf(':');
  return at > ref.lastIndexOf('/') ? [ref.slice(0, at), ref.slice(at + 1)] : [ref, 'latest'];
}
