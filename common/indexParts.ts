/**
 * The index as parts, one per indexed file: the server sends the parts that
 * changed (IndexDeltaRequest) and the client keeps a replica of the rest.
 * Both sides flatten parts the same way, so the replica's index is the
 * server's, entry for entry and in the same order.
 */
import type { IndexDelta, IndexDeltaParams, IndexFilePart, WorkspaceIndex } from './lspMessages';

const byPath = (a: IndexFilePart, b: IndexFilePart): number =>
  a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

/** The whole index from every file's part, files in workspace-relative order. */
export function flattenParts(parts: Iterable<IndexFilePart>, version: number): WorkspaceIndex {
  const index: WorkspaceIndex = { version, environments: [], templates: [], tasks: [], golden: [] };
  for (const part of [...parts].sort(byPath)) {
    for (const e of part.environments) index.environments.push(e);
    for (const t of part.templates) index.templates.push(t);
    for (const t of part.tasks) index.tasks.push(t);
    for (const g of part.golden) index.golden!.push(g);
  }
  return index;
}

/** The client's copy of the server's index, brought up to date by deltas. */
export class IndexReplica {
  private parts = new Map<string, IndexFilePart>();
  private epoch: string | undefined;
  private version = 0;

  /** What to ask for: what changed since the version held, from the server it came from. */
  next(): IndexDeltaParams {
    return this.epoch === undefined ? { since: 0 } : { since: this.version, epoch: this.epoch };
  }

  /** Applies the server's answer to next(); returns the whole index as it now stands. */
  apply(delta: IndexDelta): WorkspaceIndex {
    if (delta.full || delta.epoch !== this.epoch) this.parts = new Map();
    for (const key of delta.removed) this.parts.delete(key);
    for (const part of delta.files) this.parts.set(part.key, part);
    this.epoch = delta.epoch;
    this.version = delta.version;
    return flattenParts(this.parts.values(), delta.version);
  }
}
