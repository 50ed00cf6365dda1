/**
 * Builds an environment's image from its folder, cached by content: the tag
 * and a label carry a SHA-256 of the build context (paths, modes, contents,
 * honouring .dockerignore) and the Dockerfile's name, so an unchanged
 * environment is never rebuilt and a changed one always is.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import ignore from '@balena/dockerignore';
import { CancelledError, HudStudioError, TimeoutError } from '../errors';
import { dockerClient } from './client';
import { ImageBuildError, dockerMessage } from './errors';
import { LineSplitter } from '../output/lineSplitter';
import { packEntries, walkFolder, type FolderEntry } from './tar';
import { LABELS, type BuildRequest, type BuildResult } from './types';

export const IMAGE_REPO = 'hud-studio-env';
const DEFAULT_BUILD_TIMEOUT_MS = 30 * 60_000;

// Two rollouts of one environment starting together share one build.
const inflight = new Map<string, Promise<BuildResult>>();

export interface BuildContext {
  hash: string;
  entries: FolderEntry[];
}

/** The files Docker would receive for this build, and their content hash. */
export async function hashBuildContext(contextDir: string, dockerfile = 'Dockerfile'): Promise<BuildContext> {
  const root = resolve(contextDir);
  const ig = ignore();
  const ignoreText = await readFile(join(root, '.dockerignore'), 'utf8').catch(() => '');
  ig.add(ignoreText.split(/\r?\n/));
  // Like the docker CLI: a directory is only pruned whole when no `!` rule could bring a file back.
  const hasExceptions = /^\s*!/m.test(ignoreText);
  const alwaysSent = new Set([dockerfile.replace(/^\.\//, ''), '.dockerignore']);
  const entries = await walkFolder(root, (rel, isDir) => {
    if (alwaysSent.has(rel) || !ig.ignores(rel)) return false;
    return !(isDir && hasExceptions);
  });
  const h = createHash('sha256');
  h.update(`dockerfile\0${dockerfile}\0`);
  for (const e of entries) {
    h.update(`${e.type}\0${e.rel}\0${e.mode.toString(8)}\0`);
    if (e.type === 'symlink') h.update(`${e.linkname ?? ''}\0`);
    if (e.type === 'file') h.update(`${await fileDigest(e.abs)}\0`);
  }
  return { hash: h.digest('hex'), entries };
}

async function fileDigest(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Builds (or reuses) the image for `req.contextDir`. */
export async function buildImage(req: BuildRequest): Promise<BuildResult> {
  const dockerfile = req.dockerfile ?? 'Dockerfile';
  const dockerfilePath = join(resolve(req.contextDir), dockerfile);
  const st = await stat(dockerfilePath).catch(() => undefined);
  if (!st?.isFile()) {
    throw new HudStudioError('provider', `no Dockerfile at ${dockerfilePath}`, {
      location: { file: dockerfilePath },
      hint: 'create it, or remove it from the build request to use a ready-made image',
    });
  }
  const ctx = await hashBuildContext(req.contextDir, dockerfile);
  const tag = req.tag ?? `${IMAGE_REPO}:${ctx.hash.slice(0, 16)}`;
  const key = `${ctx.hash}\0${tag}`;
  let job = inflight.get(key);
  if (!job) {
    job = cachedOrBuild(req, ctx, tag, dockerfilePath).finally(() => inflight.delete(key));
    inflight.set(key, job);
  }
  return job;
}

async function cachedOrBuild(
  req: BuildRequest,
  ctx: BuildContext,
  tag: string,
  dockerfilePath: string,
): Promise<BuildResult> {
  const docker = dockerClient();
  const existing = await docker.listImages({ filters: { label: [`${LABELS.contextHash}=${ctx.hash}`] } });
  const hit = existing[0];
  if (hit) {
    if (!(hit.RepoTags ?? []).includes(tag)) {
      const { repo, tag: t } = splitTag(tag);
      await docker.getImage(hit.Id).tag({ repo, tag: t });
    }
    req.onLog?.(`image ${tag} is up to date (context ${ctx.hash.slice(0, 16)})`);
    return { tag, imageId: hit.Id, cached: true };
  }

  const timeoutMs = req.timeoutMs ?? DEFAULT_BUILD_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  if (signal.aborted)
    throw req.signal?.aborted ? new CancelledError('image build') : new TimeoutError('image build', timeoutMs);
  req.onLog?.(`building ${tag} from ${dockerfilePath}`);
  let output: Readable;
  try {
    output = (await docker.buildImage(packEntries(ctx.entries), {
      t: tag,
      dockerfile: req.dockerfile ?? 'Dockerfile',
      labels: { [LABELS.contextHash]: ctx.hash },
      rm: true,
      forcerm: true,
      abortSignal: signal,
    })) as Readable;
  } catch (err) {
    throw abortedOr(
      req,
      timeout,
      timeoutMs,
      () => new ImageBuildError(dockerfilePath, dockerMessage(err), undefined, []),
    );
  }
  try {
    const imageId = await followBuild(output, dockerfilePath, req.onLog, signal);
    return { tag, imageId: imageId ?? (await docker.getImage(tag).inspect()).Id, cached: false };
  } catch (err) {
    throw abortedOr(req, timeout, timeoutMs, () => err);
  }
}

function abortedOr(req: BuildRequest, timeout: AbortSignal, timeoutMs: number, other: () => unknown): unknown {
  if (req.signal?.aborted) return new CancelledError('image build');
  if (timeout.aborted)
    return new TimeoutError('image build', timeoutMs, {
      hint: 'raise the build timeout, or make the Dockerfile faster',
    });
  return other();
}

/** Reads the daemon's JSON progress; resolves with the image id, throws the failing step. */
function followBuild(
  output: Readable,
  dockerfilePath: string,
  onLog: ((line: string) => void) | undefined,
  signal: AbortSignal,
): Promise<string | undefined> {
  return new Promise((resolveBuild, reject) => {
    let step: string | undefined;
    let stepOutput: string[] = [];
    let imageId: string | undefined;
    let failure: ImageBuildError | undefined;
    const text = new LineSplitter((line) => {
      const m = /^Step \d+\/\d+ : /.exec(line);
      if (m) {
        step = line;
        stepOutput = [];
      } else {
        stepOutput.push(line);
      }
      const built = /^Successfully built ([0-9a-f]+)$/.exec(line);
      if (built && !imageId) imageId = built[1];
      onLog?.(line);
    });
    const json = new LineSplitter((line) => {
      if (!line.trim()) return;
      let ev: {
        stream?: string;
        status?: string;
        error?: string;
        errorDetail?: { message?: string };
        aux?: { ID?: string };
      };
      try {
        ev = JSON.parse(line) as typeof ev;
      } catch {
        text.push(`${line}\n`);
        return;
      }
      if (typeof ev.stream === 'string') text.push(ev.stream);
      if (typeof ev.status === 'string') text.push(`${ev.status}\n`);
      if (ev.aux?.ID) imageId = ev.aux.ID;
      if (ev.error || ev.errorDetail) {
        text.end();
        failure ??= new ImageBuildError(
          dockerfilePath,
          ev.errorDetail?.message ?? ev.error ?? 'unknown error',
          step,
          stepOutput,
        );
      }
    });
    let settled = false;
    const finish = (err?: Error): void => {
      if (settled) return;
      settled = true;
      json.end();
      text.end();
      if (err) reject(err);
      else if (failure) reject(failure);
      else if (signal.aborted) reject(signal.reason);
      else resolveBuild(imageId);
    };
    output.on('data', (chunk: Buffer) => json.push(chunk));
    output.on('error', (err) => finish(err));
    output.on('end', () => finish());
    output.on('close', () => finish());
  });
}

function splitTag(ref: string): { repo: string; tag: string } {
  const at = ref.lastIndexOf(':');
  if (at > ref.lastIndexOf('/')) return { repo: ref.slice(0, at), tag: ref.slice(at + 1) };
  return { repo: ref, tag: 'latest' };
}
