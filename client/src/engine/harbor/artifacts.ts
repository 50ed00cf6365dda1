/**
 * Moves a trial's artifacts: out of the actor environment into the trial
 * folder (declared paths, /logs/artifacts, /logs/agent), and, for a separate
 * verifier, back in at their original paths. Only what was declared crosses;
 * excluded patterns are dropped on the way out so they can never reach the
 * verifier.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, relative, sep } from 'node:path';
import { HudStudioError } from '../errors';
import { boundedArchiveCopy, type BoundedCopy } from './archive';
import type { ManagedContainer } from '../docker/types';
import type { ArtifactSpec } from '../../../../common/harbor';

export const LOGS_AGENT = '/logs/agent';
export const LOGS_ARTIFACTS = '/logs/artifacts';
export const LOGS_VERIFIER = '/logs/verifier';

/** A declared artifact as it was collected. */
export interface CollectedArtifact {
  source: string;
  service: string;
  /** Host path of the copy (file or folder). */
  hostPath: string | undefined;
  missing: boolean;
  /** Relative to the trial's artifacts/ folder. */
  destination: string;
  type: 'file' | 'directory';
}

/** Where a declared artifact lands in the trial's artifacts/ folder. */
export function artifactDestination(spec: ArtifactSpec): string {
  const rel = spec.destination ?? spec.source.replace(/^\/+/, '');
  const normal = posix.normalize(rel).replace(/^(\.\.\/)+/, '');
  return normal === '.' || normal === '' ? basename(spec.source) : normal;
}

/** `*` and `?` within one path segment, `**` across segments; a pattern without `/` matches any basename. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
      if (pattern[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(pattern.includes('/') ? `^${re}$` : `(^|/)${re}$`);
}

/** Deletes files and folders under `root` that match an exclude pattern. */
export function applyExcludes(root: string, patterns: readonly string[]): string[] {
  // lstat: a symlinked artifact must never lead the deletion onto the host's own files.
  if (patterns.length === 0 || !existsSync(root) || !lstatSync(root).isDirectory()) return [];
  const res = patterns.map(globToRegExp);
  const removed: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const abs = join(dir, name);
      const rel = relative(root, abs).split('\\').join('/');
      if (res.some((r) => r.test(rel))) {
        rmSync(abs, { recursive: true, force: true });
        removed.push(rel);
      } else if (lstatSync(abs).isDirectory()) walk(abs);
    }
  };
  walk(root);
  return removed;
}

/** How a copy out went: `too-large` says why nothing of it was kept. */
export type CopyOutResult = { status: 'copied' } | Exclude<BoundedCopy, { status: 'copied' }>;

/**
 * Copies container path `src` to exactly `hostTarget` (not into it), merging
 * into a folder that already exists. The copy goes through the archive API:
 * no program of the container runs. A copy over the extraction's budget
 * (docker/tar.ts) keeps nothing: the agent chose what is in it, and a run
 * must not end in an error because of that (docs/security.md).
 */
export async function copyOutTo(
  container: ManagedContainer,
  src: string,
  hostTarget: string,
  root?: string,
): Promise<CopyOutResult> {
  if (root) assertNoSymlinkBetween(root, hostTarget);
  const got = await boundedArchiveCopy(container, src);
  if (got.status !== 'copied') return got;
  const { copy } = got;
  try {
    mkdirSync(dirname(hostTarget), { recursive: true });
    // A copy, not a rename: the temporary folder may sit on another file system.
    cpSync(copy.path, hostTarget, { recursive: true, force: true, verbatimSymlinks: true });
    return { status: 'copied' };
  } finally {
    copy.dispose();
  }
}

/**
 * Refuses a host target reached through a symlink below `root`: an earlier
 * artifact (controlled by the agent) may have planted one pointing anywhere
 * on the host.
 */
export function assertNoSymlinkBetween(root: string, target: string): void {
  const rel = relative(root, target);
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new HudStudioError('harbor-verifier', `artifact target ${target} is outside ${root}`);
  let at = root;
  for (const part of rel.split(sep).filter(Boolean)) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      return; // the rest does not exist yet and will be created as real folders
    }
    if (st.isSymbolicLink()) {
      throw new HudStudioError(
        'harbor-verifier',
        `refusing to collect into ${target}: ${at} is a symlink an earlier artifact created`,
        {
          hint: 'declare artifacts that do not overlap through symlinks',
        },
      );
    }
  }
}

/**
 * Copies host `hostPath` (file or folder) so that it appears at exactly
 * `containerPath`, without any symlink: the agent made these files, and a
 * symlink among them would let a later copy write through it anywhere in the
 * verifier's container. Returns the symlinks left out.
 */
export async function copyInAs(
  container: ManagedContainer,
  hostPath: string,
  containerPath: string,
): Promise<string[]> {
  const staging = mkdtempSync(join(tmpdir(), 'hud-studio-copy-'));
  const dropped: string[] = [];
  try {
    const name = posix.basename(containerPath) || 'root';
    const staged = join(staging, name);
    if (lstatSync(hostPath).isSymbolicLink()) return [containerPath];
    cpSync(hostPath, staged, {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => {
        if (!lstatSync(src).isSymbolicLink()) return true;
        dropped.push(posix.join(containerPath, relative(hostPath, src).split(sep).join('/')));
        return false;
      },
    });
    await container.copyIn(staged, lstatSync(staged).isDirectory() ? containerPath : posix.dirname(containerPath));
    return dropped;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Collects every declared artifact into `artifactsDir`, honouring `exclude`. */
export async function collectDeclared(
  specs: readonly ArtifactSpec[],
  service: (name: string) => Promise<ManagedContainer>,
  artifactsDir: string,
  warn: (message: string) => void,
): Promise<CollectedArtifact[]> {
  const out: CollectedArtifact[] = [];
  for (const spec of specs) {
    const hostPath = join(artifactsDir, artifactDestination(spec));
    const container = await service(spec.service);
    const copied = await copyOutTo(container, spec.source, hostPath, artifactsDir);
    const destination = artifactDestination(spec);
    if (copied.status !== 'copied') {
      warn(
        copied.status === 'missing'
          ? `declared artifact ${spec.source} (service ${spec.service}) did not exist when the agent finished`
          : `declared artifact ${spec.source} (service ${spec.service}) was not collected: ${copied.why}`,
      );
      out.push({
        source: spec.source,
        service: spec.service,
        hostPath: undefined,
        missing: true,
        destination,
        type: posix.extname(spec.source) ? 'file' : 'directory',
      });
      continue;
    }
    applyExcludes(hostPath, spec.exclude);
    out.push({
      source: spec.source,
      service: spec.service,
      hostPath,
      missing: false,
      destination,
      type: lstatSync(hostPath).isDirectory() ? 'directory' : 'file',
    });
  }
  return out;
}
