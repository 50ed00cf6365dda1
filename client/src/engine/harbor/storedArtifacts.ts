/**
 * What a separate verifier gets, read back from a stored trial folder: the
 * declared artifacts at their original paths and `/logs/artifacts`, as
 * `artifacts/manifest.json` lists them (docs/harbor.md, docs/grader-workbench.md).
 * Only a separate verifier can be run again from these: a shared one ran in
 * the agent's container, whose state was not kept.
 */
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { HudStudioError } from '../errors';
import { LOGS_ARTIFACTS, type CollectedArtifact } from './artifacts';

export interface StoredArtifacts {
  collected: CollectedArtifact[];
  /** Host copy of /logs/artifacts as the agent left it. */
  logsArtifacts: string;
}

const Manifest = z.array(
  z.object({
    source: z.string(),
    destination: z.string(),
    type: z.enum(['file', 'directory']),
    status: z.enum(['ok', 'failed', 'empty', 'skipped']),
    service: z.string().nullable(),
  }),
);

export type StoredManifest = z.infer<typeof Manifest> & { readonly from: string };

/** Reads a stored trial's artifact manifest; a typed error names the file and what is wrong. */
export function readStoredManifest(trialDir: string): StoredManifest {
  const stored = join(trialDir, 'artifacts');
  const manifestPath = join(stored, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new HudStudioError(
      'harbor-config',
      `${manifestPath} is missing: the stored trial kept no artifacts to verify`,
      {
        hint: 'regrade a trial that ran to its verifier (its trial folder holds artifacts/manifest.json)',
      },
    );
  }
  try {
    return Object.assign(Manifest.parse(JSON.parse(readFileSync(manifestPath, 'utf8'))), { from: stored });
  } catch (err) {
    throw new HudStudioError('harbor-config', `${manifestPath} is not an artifact manifest: ${String(err)}`, {
      hint: 'the trial folder was changed by hand; run the trial again',
    });
  }
}

/**
 * Copies a stored trial's `artifacts/` into `intoArtifacts` (the regrade
 * trial's own folder, so it holds what its verifier saw) and describes the
 * copy. Symlinks are copied as links; copyInAs leaves them out on the way
 * into the verifier, as in a first trial.
 */
export function copyStoredArtifacts(entries: StoredManifest, intoArtifacts: string): StoredArtifacts {
  const manifestPath = join(entries.from, 'manifest.json');
  cpSync(entries.from, intoArtifacts, { recursive: true, force: true, verbatimSymlinks: true });
  const inside = (dest: string): string => {
    const path = resolve(intoArtifacts, dest);
    const rel = relative(intoArtifacts, path);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
      throw new HudStudioError('harbor-config', `${manifestPath}: destination "${dest}" leaves artifacts/`, {
        hint: 'the trial folder was changed by hand; run the trial again',
      });
    }
    return path;
  };
  const collected: CollectedArtifact[] = [];
  let logsArtifacts = join(intoArtifacts, 'logs', 'artifacts');
  for (const e of entries) {
    if (e.source === LOGS_ARTIFACTS) {
      logsArtifacts = inside(e.destination);
      continue;
    }
    const missing = e.status !== 'ok';
    const hostPath = missing ? undefined : inside(e.destination);
    collected.push({
      source: e.source,
      service: e.service ?? 'main',
      hostPath: hostPath && existsSync(hostPath) ? hostPath : undefined,
      missing: missing || !hostPath || !existsSync(hostPath),
      destination: e.destination,
      type: e.type,
    });
  }
  return { collected, logsArtifacts };
}
