/**
 * A task's compose file in the editor and in `check`: what in it reaches
 * this machine (common/compose/hostAccess.ts), read as written and said at
 * the key that asks for it. A run judges the file again as Compose reads it
 * (variables and merges filled in) and refuses it without the user's
 * consent (docs/security.md, "Compose files that reach the host"); here the
 * author learns it before anything runs.
 *
 * Only a task's compose file is judged: a Harbor task's
 * `environment/docker-compose.yaml`, or one beside a HUD `env.py`. Any other
 * compose file in the workspace is the user's own, and binds what it likes.
 */
import { basename, dirname, join } from 'node:path';
import { parseDocument, isMap, isScalar, type Document, type Node } from 'yaml';
import { hostAccessIn, type ComposeDoc } from '../../../common/compose/hostAccess';
import { problem, ZERO_RANGE } from './diagnostics';
import type { ComposeFacts, Range } from './facts';
import { LineMap } from './lines';

const HARBOR_ENVIRONMENT_DIR = 'environment';

/** The range of the deepest key of `path` the file writes (a merged-in key is not written: its service is). */
function keyRange(root: Node | null, path: readonly string[], lines: LineMap): Range {
  let node: unknown = root;
  let range: Range = ZERO_RANGE;
  for (const step of path) {
    if (!isMap(node)) break;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === step);
    if (!pair || !isScalar(pair.key) || !pair.key.range) break;
    const [start, end] = pair.key.range;
    range = lines.rangeAt(start, end);
    node = pair.value;
  }
  return range;
}

/** The task folders whose files the compose file at `path` may hand its services: its own, and a Harbor task's. */
function ownFolders(path: string): string[] {
  const dir = dirname(path);
  return basename(dir) === HARBOR_ENVIRONMENT_DIR ? [dir, dirname(dir)] : [dir];
}

/** The file's document and its value, or undefined where YAML cannot read it (or its aliases would explode). */
function readable(text: string): { doc: Document.Parsed; value: unknown } | undefined {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return undefined;
  try {
    return { doc, value: doc.toJS() };
  } catch {
    return undefined;
  }
}

export function extractComposeFacts(text: string, path: string): ComposeFacts {
  const read = readable(text);
  const services = (read?.value as { services?: unknown } | undefined)?.services;
  // A file Compose cannot read is the run's to report, with Compose's own words.
  if (!read || !services || typeof services !== 'object') return { kind: 'compose', reaches: [] };
  const lines = new LineMap(text);
  const dir = dirname(path);
  const reaches = hostAccessIn(read.value as ComposeDoc, dir, ownFolders(path)).map((h) =>
    problem(
      'compose-reaches-host',
      keyRange(read.doc.contents, h.path, lines),
      `${h.subject} ${h.what}: that reaches this machine, not just the task's containers, so a run of this task asks for your consent first (fix: remove it from the compose file, or allow service access if you trust the task)`,
    ),
  );
  return { kind: 'compose', reaches };
}

/**
 * The files whose presence makes the compose file at `path` a task's: `env.py` beside it, or a Harbor task's
 * `task.toml` above its environment/ folder.
 */
export function composeOwners(path: string): string[] {
  const dir = dirname(path);
  const owners = [join(dir, 'env.py')];
  if (basename(dir) === HARBOR_ENVIRONMENT_DIR) owners.push(join(dirname(dir), 'task.toml'));
  return owners;
}
