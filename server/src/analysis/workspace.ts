/**
 * The workspace model: the facts of every indexed file, the links between
 * them and the reverse dependencies that decide what to re-link when a file
 * changes. Holds no syntax trees and no file text, so memory stays small.
 */
import { randomUUID } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { flattenParts } from '../../../common/indexParts';
import type { IndexDelta, IndexFilePart, WorkspaceIndex } from '../../../common/lspMessages';
import { envFileFor } from '../../../common/golden/rows';
import { HARBOR_GOLDEN_DIR, readHarborGolden } from '../../../common/golden/solutions';
import type { FileFacts, FileProblem, TemplateFacts } from './facts';
import { composeOwners } from './composeTask';
import { linkGolden } from './golden';
import { linkHarbor } from './harborTask';
import { EMPTY_LINK, type LinkResult, type TemplateRegistry } from './link';
import { linkJson } from './linkJson';
import { linkPython, type FileIdentity } from './linkPython';
import { pathToUri, workspaceRelative } from './paths';
import { StringMultimap } from './multimap';
import { Resolver, type ModuleCache } from './resolver';

export interface WorkspaceHost {
  /** Whether a file exists on disk (Harbor's implied files). */
  exists(path: string): boolean;
}

interface FileRecord {
  path: string;
  uri: string;
  rel: string;
  facts: FileFacts;
  link: LinkResult;
  deps: string[];
  /** `env\0id` of each template this file defines. */
  templateKeys: string[];
  /** The workspace version at which its part of the index last changed (indexSince). */
  changedAt: number;
}

const templateKey = (env: string, id: string) => `tmpl:${env}\0${id}`;

/** Removed files remembered for indexSince; past this many, a client that is behind gets the whole index. */
const MAX_REMEMBERED_REMOVALS = 10_000;

export class Workspace {
  private readonly records = new Map<string, FileRecord>();
  private readonly dependents = new StringMultimap();
  private readonly definers = new StringMultimap();
  private readonly uris = new Map<string, string>();
  private cachedIndex: WorkspaceIndex | undefined;
  /** Files removed from the index, and the version at which each went (indexSince). */
  private readonly removedAt = new Map<string, number>();
  /** Removals up to this version were forgotten (removedAt is bounded): a client from before gets everything. */
  private removalsForgottenAt = 0;
  /** Tells this model's versions from another's: a restarted server counts from 0 again. */
  readonly epoch = randomUUID();
  // Made once rather than per linked file.
  private readonly uriOfPath = (p: string): string => this.uriOf(p);
  private readonly relOfPath = (p: string): string => this.relOf(p);
  version = 0;

  constructor(
    private folders: readonly string[],
    private readonly host: WorkspaceHost,
  ) {}

  /** The workspace folders: module names and relative paths count from them. */
  get roots(): readonly string[] {
    return this.folders;
  }

  /**
   * The workspace folders changed (one added to or removed from a multi-root
   * workspace). Relative paths, module resolution and so each template's
   * environment may change with them, for every file: all are keyed and
   * linked again (relink), once, after the files of `gone` (a removed
   * folder's) are forgotten. Returns every path, the removed ones included.
   */
  setRoots(roots: readonly string[], gone: Iterable<string> = []): Set<string> {
    const removed: string[] = [];
    for (const path of gone) if (this.forget(path, new Set())) removed.push(path);
    this.folders = [...roots];
    for (const rec of this.records.values()) rec.rel = workspaceRelative(this.folders, rec.path);
    const all = new Set(this.records.keys());
    this.relink(all);
    this.rememberRemoved(removed);
    for (const path of removed) all.add(path);
    return all;
  }

  /** Remembers the URI spelling the client uses for a path. */
  setUri(path: string, uri: string): void {
    this.uris.set(path, uri);
    const rec = this.records.get(path);
    if (rec && rec.uri !== uri) {
      rec.uri = uri;
      rec.changedAt = ++this.version;
    }
  }

  uriOf(path: string): string {
    return this.records.get(path)?.uri ?? this.uris.get(path) ?? pathToUri(path);
  }

  relOf(path: string): string {
    return this.records.get(path)?.rel ?? workspaceRelative(this.roots, path);
  }

  has(path: string): boolean {
    return this.records.has(path);
  }

  paths(): IterableIterator<string> {
    return this.records.keys();
  }

  facts(path: string): FileFacts | undefined {
    return this.records.get(path)?.facts;
  }

  link(path: string): LinkResult | undefined {
    return this.records.get(path)?.link;
  }

  problems(path: string): FileProblem[] {
    const rec = this.records.get(path);
    if (!rec) return [];
    const own = rec.facts.kind === 'skipped' ? rec.facts.problems : [];
    return [...own, ...rec.link.problems];
  }

  /** Sets the facts of several files and re-links everything they affect; returns the affected paths. */
  setFacts(entries: Iterable<[string, FileFacts]>): Set<string> {
    const affected = new Set<string>();
    for (const [path, facts] of entries) {
      const old = this.records.get(path);
      const rec: FileRecord = {
        path,
        uri: old?.uri ?? this.uriOf(path),
        rel: old?.rel ?? this.relOf(path),
        facts,
        link: old?.link ?? EMPTY_LINK,
        deps: old?.deps ?? [],
        // Made again by relink (rekey), once every record of the batch is in place.
        templateKeys: old?.templateKeys ?? [],
        changedAt: this.version,
      };
      this.records.set(path, rec);
      this.removedAt.delete(path);
      affected.add(path);
      // What reads this file's facts, or its templates by key (a JSON row, a verifier): their facts changed.
      this.collectDependents([path, ...rec.templateKeys], affected);
    }
    this.relink(affected);
    return affected;
  }

  /**
   * Files that went away (a deleted file, a deleted folder's files): the
   * files that read them are linked again, once for the whole batch. A path
   * the index never held is touched instead (see touch).
   */
  remove(paths: Iterable<string>): Set<string> {
    const affected = new Set<string>();
    const removed: string[] = [];
    for (const path of paths) {
      if (this.forget(path, affected)) removed.push(path);
      else this.collectTouched(path, affected);
    }
    for (const path of removed) affected.delete(path);
    // A removal is a change even when nothing read the file: relink moves the version on.
    if (affected.size > 0 || removed.length > 0) this.relink(affected);
    this.rememberRemoved(removed);
    for (const path of removed) affected.add(path);
    return affected;
  }

  /** Drops a file's record and adds what read it to `affected`; false when the index did not hold it. */
  private forget(path: string, affected: Set<string>): boolean {
    const old = this.records.get(path);
    if (!old) return false;
    this.retarget(path, old.templateKeys, []);
    this.setDeps(old, []);
    this.records.delete(path);
    this.uris.delete(path);
    this.collectDependents([path, ...old.templateKeys], affected);
    return true;
  }

  /** For index deltas (indexSince): at the version the removals were linked at. */
  private rememberRemoved(paths: readonly string[]): void {
    for (const path of paths) {
      if (this.removedAt.size >= MAX_REMEMBERED_REMOVALS) {
        this.removedAt.clear();
        this.removalsForgottenAt = this.version;
      }
      this.removedAt.set(path, this.version);
    }
  }

  /**
   * A file outside the index appeared, changed or went away (e.g. a Harbor
   * task's tests/test.sh). A dependency on a folder covers everything under
   * it (a task's golden/), so the path's folders count as touched too.
   */
  touch(path: string): Set<string> {
    const affected = new Set<string>();
    this.collectTouched(path, affected);
    if (affected.size > 0) this.relink(affected);
    return affected;
  }

  private collectTouched(path: string, into: Set<string>): void {
    for (let p = path, up = dirname(p); ; p = up, up = dirname(p)) {
      for (const d of this.dependents.get(p)) into.add(d);
      if (up === p) break;
    }
  }

  index(): WorkspaceIndex {
    if (this.cachedIndex?.version === this.version) return this.cachedIndex;
    this.cachedIndex = flattenParts(
      [...this.records.values()].map((rec) => this.partOf(rec)),
      this.version,
    );
    return this.cachedIndex;
  }

  /**
   * The parts of the index that changed after version `since`, and the files
   * removed since then; everything when `epoch` is not this model's (a
   * client of an earlier server, or one that holds nothing yet).
   */
  indexSince(since: number, epoch: string | undefined): IndexDelta {
    const full = epoch !== this.epoch || since > this.version || since < this.removalsForgottenAt;
    const files: IndexFilePart[] = [];
    for (const rec of this.records.values()) if (full || rec.changedAt > since) files.push(this.partOf(rec));
    const removed: string[] = [];
    if (!full) for (const [path, at] of this.removedAt) if (at > since) removed.push(path);
    return { version: this.version, epoch: this.epoch, full, files, removed };
  }

  private partOf(rec: FileRecord): IndexFilePart {
    const facts = rec.facts;
    return {
      key: rec.path,
      rel: rec.rel,
      environments:
        facts.kind === 'python' && facts.importsHud
          ? facts.environments.map((e) => ({ name: e.name, variable: e.variable, uri: rec.uri, range: e.range }))
          : [],
      templates: rec.link.templates,
      tasks: rec.link.tasks,
      golden: rec.link.golden ?? [],
    };
  }

  private templateKeysOf(path: string, templates: TemplateFacts[]): string[] {
    if (templates.length === 0) return [];
    const resolver = new Resolver(this, this.roots, new Set());
    return templates.map((t) => templateKey(resolver.envName(path, t.envVariable), t.id));
  }

  private rekey(path: string, into: Set<string>): void {
    const rec = this.records.get(path);
    if (!rec) return;
    const keys = rec.facts.kind === 'python' ? this.templateKeysOf(path, rec.facts.templates) : [];
    if (sameStrings(keys, rec.templateKeys)) return;
    this.retarget(path, rec.templateKeys, keys);
    this.collectDependents([...rec.templateKeys, ...keys], into);
    rec.templateKeys = keys;
  }

  private retarget(path: string, oldKeys: string[], newKeys: string[]): void {
    for (const k of oldKeys) this.definers.delete(k, path);
    for (const k of newKeys) this.definers.add(k, path);
  }

  /** Into `into`: the files that depend on one of `deps` (a file whose facts they read, a key they looked up). */
  private collectDependents(deps: readonly string[], into: Set<string>): void {
    for (const dep of deps) for (const d of this.dependents.get(dep)) into.add(d);
  }

  private setDeps(rec: FileRecord, deps: string[]): void {
    for (const d of rec.deps) this.dependents.delete(d, rec.path);
    for (const d of deps) this.dependents.add(d, rec.path);
    rec.deps = deps;
  }

  /**
   * Keys the templates of each file of `paths` again, then links them. A
   * template's key names its environment, which may be resolved through
   * another file (`from shared import env`): one that changed, came later
   * in the same batch, or lies in a folder just added. Every key is settled
   * before any file is linked, since links look templates up by key; a key
   * that changed adds the files that looked it up to `paths`.
   */
  private relink(paths: Set<string>): void {
    for (const path of [...paths]) this.rekey(path, paths);
    const modules: ModuleCache = new Map();
    // Golden files last: they read the tasks their env.py links to.
    const golden: FileRecord[] = [];
    for (const path of paths) {
      const rec = this.records.get(path);
      if (rec?.facts.kind === 'golden') golden.push(rec);
      else if (rec) this.linkOne(rec, modules);
    }
    for (const rec of golden) this.linkOne(rec, modules);
    this.version++;
    for (const path of paths) {
      const rec = this.records.get(path);
      if (rec) rec.changedAt = this.version;
    }
  }

  /** Templates by environment name and id; each lookup becomes a dependency of the file being linked. */
  private registry(deps: Set<string>): TemplateRegistry {
    return {
      find: (env, id) => {
        const key = templateKey(env, id);
        deps.add(key);
        const out: { path: string; template: TemplateFacts }[] = [];
        for (const p of this.definers.get(key)) {
          const f = this.records.get(p)?.facts;
          if (f?.kind !== 'python') continue;
          const idx = this.records.get(p)!.templateKeys.indexOf(key);
          const t = f.templates[idx];
          if (t) out.push({ path: p, template: t });
        }
        return out.sort((a, b) => (a.path < b.path ? -1 : 1));
      },
    };
  }

  private linkOne(rec: FileRecord, modules: ModuleCache): void {
    const deps = new Set<string>();
    const identity: FileIdentity = {
      path: rec.path,
      uri: rec.uri,
      rel: rec.rel,
      uriOf: this.uriOfPath,
      relOf: this.relOfPath,
    };
    const facts = rec.facts;
    try {
      switch (facts.kind) {
        case 'python':
          rec.link = linkPython(identity, facts, new Resolver(this, this.roots, deps, modules), this.registry(deps));
          break;
        case 'json-tasks':
          rec.link = linkJson(identity, facts, this.registry(deps));
          break;
        case 'harbor':
          rec.link = linkHarbor(identity, facts, {
            exists: (p) => {
              deps.add(p);
              return this.host.exists(p);
            },
            goldenProblems: (dir) => {
              const root = join(dir, HARBOR_GOLDEN_DIR);
              deps.add(root);
              return this.host.exists(root) ? readHarborGolden(dir).problems : [];
            },
          });
          break;
        case 'golden': {
          const envPath = envFileFor(rec.path);
          deps.add(envPath);
          const env = this.records.get(envPath);
          rec.link = linkGolden(
            identity,
            facts,
            env ? { rel: env.rel, uri: env.uri, tasks: env.link.tasks } : undefined,
          );
          break;
        }
        case 'compose': {
          const owners = composeOwners(rec.path);
          for (const owner of owners) deps.add(owner);
          const isTasks = owners.some((owner) => this.host.exists(owner));
          rec.link = isTasks ? { ...EMPTY_LINK, problems: facts.reaches } : EMPTY_LINK;
          break;
        }
        case 'skipped':
          rec.link = EMPTY_LINK;
          break;
      }
    } catch (err) {
      // A bug in linking one file must not take the index down; say so on the file.
      rec.link = {
        ...EMPTY_LINK,
        problems: [
          {
            code: 'internal-error',
            severity: 'info',
            message: `HUD Studio could not analyse ${basename(rec.path)}: ${err instanceof Error ? err.message : String(err)} (please report this)`,
            range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
          },
        ],
      };
    }
    this.setDeps(rec, [...deps]);
  }
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
