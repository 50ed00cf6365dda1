/**
 * The analysis core used by the language server, the `check` CLI, tests and
 * the benchmark (no LSP dependency). Closed files are parsed, reduced to
 * facts and their trees freed at once; open documents keep their tree and
 * are re-parsed incrementally on each edit.
 */
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { TextDocument, type TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import type { FileFacts } from './facts';
import { problem, ZERO_RANGE } from './diagnostics';
import { isGoldenFile } from '../../../common/golden/rows';
import { TRACE_FILE_SUFFIX } from '../../../common/trace/fileName';
import { extractGoldenFacts } from './golden';
import { extractComposeFacts } from './composeTask';
import { extractHarborFacts } from './harborTask';
import { extractJsonTasks } from './jsonTasks';
import { ModuleTree } from './moduleTree';
import { extractPythonFacts } from './pythonFacts';
import { slowParseFacts } from './slowParse';
import {
  budgetMs,
  createPythonParser,
  DEFAULT_PARSE_BUDGET,
  parseWithin,
  type BudgetedParse,
  type ParseBudget,
  type Parser,
  type Tree,
} from './treeSitter';
import { RecentTreeUse, type TreeKeeping } from './treeKeeping';
import { Workspace, type WorkspaceHost } from './workspace';

export const DEFAULT_MAX_FILE_BYTES = 2 * 1024 * 1024;

/**
 * Closed files parsed before their facts are read (see factsForBatch): up to
 * this many, or this much source, whichever comes first. Batching at all
 * pays: alternating one parse with one extraction made each evict the
 * other's working set from the CPU caches, and every switch between the
 * parser and the readers costs again. So the batch is as large as memory
 * allows, and what memory binds is whether the trees are kept:
 *
 * - Kept trees (through their extraction) are alive at once in wasm memory,
 *   which is never given back: at 11,000 files 256 kept trees a batch
 *   peaked at 201-214 MB RSS, 64 at 189-203 MB. The bytes bind for real
 *   modules (a few KB each): 64 KB instead of 128 took the cold index of
 *   the repository's own modules from 1.64-1.74 of their parse to 1.54-1.67
 *   (the benchmark's `repoModules`).
 * - Trees freed at their parse (treeKeeping.ts) leave only the batch's texts
 *   alive: 256 files (the server's start-up batch) took the generated
 *   workspace from 1.47-1.53 of the floor to 1.42-1.46 in three alternating
 *   pairs, the extraction doing less of its work on cold caches
 *   (bench/index/README.md, "Larger batches when the trees are freed").
 */
const KEPT_TREES_BATCH = { files: 64, bytes: 64 * 1024 };
const FREED_TREES_BATCH = { files: 256, bytes: 256 * 1024 };

const sizeOf = (content: FileContent): number =>
  typeof content === 'string' ? content.length : content instanceof Uint8Array ? content.byteLength : 0;

const isOversized = (content: FileContent): content is { oversizedBytes: number } =>
  typeof content === 'object' && 'oversizedBytes' in content;

/** The names a task's compose file goes by (Harbor's, and `runtime_config.compose`'s default). */
const COMPOSE_FILE_NAMES: ReadonlySet<string> = new Set(['docker-compose.yaml', 'docker-compose.yml']);

export type FileKind = 'python' | 'json' | 'harbor' | 'golden' | 'compose';

export function fileKind(path: string): FileKind | undefined {
  if (path.endsWith('.py')) return 'python';
  if (isGoldenFile(path)) return 'golden';
  // HUD Studio's own traces: never task rows, and a rollout writes one (megabytes, at times) at every run.
  if (path.endsWith(TRACE_FILE_SUFFIX)) return undefined;
  if (path.endsWith('.json') || path.endsWith('.jsonl')) return 'json';
  if (basename(path) === 'task.toml') return 'harbor';
  if (COMPOSE_FILE_NAMES.has(basename(path))) return 'compose';
  return undefined;
}

/** What a file holds: its text or bytes, or only its size when it is too large to read. */
export type FileContent = string | Uint8Array | { oversizedBytes: number };

/** Decodes file bytes as UTF-8; invalid sequences become U+FFFD instead of failing. */
export function decodeText(content: string | Uint8Array): string {
  const text = typeof content === 'string' ? content : new TextDecoder('utf-8', { fatal: false }).decode(content);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * CPU time (user + system, in ms, all threads) spent on closed files, by
 * phase: decoding and parsing (and freeing the trees freed at once),
 * reading facts from the trees (and freeing the others), linking with the
 * diagnostics. Summed into the object passed as
 * AnalyzerOptions.phases; the index benchmark reports it beside its ratio
 * (bench/index/README.md).
 */
export interface PhaseTimes {
  parse: number;
  extract: number;
  link: number;
}

export interface AnalyzerOptions {
  roots: readonly string[];
  host?: WorkspaceHost;
  maxFileBytes?: number;
  phases?: PhaseTimes;
  /** How long a parse may take (treeSitter.ts); tests make it short. */
  parseBudget?: ParseBudget;
  /** Whether closed files' trees outlive their parse (treeKeeping.ts); tests fix it either way. */
  treeKeeping?: TreeKeeping;
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

interface OpenDocument {
  doc: TextDocument;
  tree: Tree | undefined;
  /** Its last parse ran out of its budget: edits are not parsed until a save (retryDocument). */
  stalled: boolean;
  /** Edited since it was last analysed (editDocument; analysePending analyses it). */
  pending: boolean;
  /** How long its last analysis took, in ms: the server lets a burst of edits settle when it is slow. */
  analysisMs: number;
}

export class Analyzer {
  private readonly open = new Map<string, OpenDocument>();
  private readonly maxFileBytes: number;
  private readonly phases: PhaseTimes | undefined;
  private readonly parseBudget: ParseBudget;
  private readonly treeKeeping: TreeKeeping;

  private constructor(
    readonly workspace: Workspace,
    private readonly parser: Parser,
    options: AnalyzerOptions,
  ) {
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.phases = options.phases;
    this.parseBudget = options.parseBudget ?? DEFAULT_PARSE_BUDGET;
    this.treeKeeping = options.treeKeeping ?? new RecentTreeUse();
  }

  static async create(options: AnalyzerOptions): Promise<Analyzer> {
    const parser = await createPythonParser();
    const host = options.host ?? { exists: (p: string) => existsSync(p) };
    return new Analyzer(new Workspace(options.roots, host), parser, options);
  }

  isOpen(path: string): boolean {
    return this.open.has(path);
  }

  /** Text of an open document. */
  documentText(path: string): string | undefined {
    return this.open.get(path)?.doc.getText();
  }

  document(path: string): TextDocument | undefined {
    return this.open.get(path)?.doc;
  }

  /** Content of closed files (from disk); open documents win over disk. Returns the affected paths. */
  setFiles(entries: Iterable<[string, FileContent]>): Set<string> {
    const facts: [string, FileFacts][] = [];
    const gone: string[] = [];
    let batch: [string, FileContent][] = [];
    let bytes = 0;
    // Decided per batch: whether its trees are kept follows the files read before it.
    let limit = this.batchLimit();
    const flush = () => {
      for (const [path, f] of this.factsForBatch(batch)) {
        if (f) facts.push([path, f]);
        else if (this.workspace.has(path)) gone.push(path);
      }
      batch = [];
      bytes = 0;
      limit = this.batchLimit();
    };
    for (const entry of entries) {
      if (this.open.has(entry[0])) continue;
      batch.push(entry);
      bytes += sizeOf(entry[1]);
      if (batch.length >= limit.files || bytes >= limit.bytes) flush();
    }
    flush();
    const t0 = this.phases ? cpuMs() : 0;
    const affected = this.workspace.setFacts(facts);
    if (gone.length) for (const a of this.workspace.remove(gone)) affected.add(a);
    if (this.phases) this.phases.link += cpuMs() - t0;
    return affected;
  }

  private batchLimit(): { files: number; bytes: number } {
    return this.treeKeeping.keepTrees() ? KEPT_TREES_BATCH : FREED_TREES_BATCH;
  }

  setFile(path: string, content: FileContent): Set<string> {
    return this.setFiles([[path, content]]);
  }

  /** See Workspace.setRoots; `gone`: the files no folder holds any more (an open one stays). */
  setRoots(roots: readonly string[], gone: Iterable<string> = []): Set<string> {
    return this.workspace.setRoots(roots, this.closedOnly(gone));
  }

  deleteFile(path: string): Set<string> {
    return this.deleteFiles([path]);
  }

  /** Files gone from disk, in one batch (a deleted folder's); open ones stay, as their editors hold them. */
  deleteFiles(paths: Iterable<string>): Set<string> {
    return this.workspace.remove(this.closedOnly(paths));
  }

  private closedOnly(paths: Iterable<string>): string[] {
    return [...paths].filter((p) => !this.open.has(p));
  }

  /** A non-indexed file changed (Harbor's instruction.md, tests/...). */
  touch(path: string): Set<string> {
    return this.workspace.touch(path);
  }

  openDocument(path: string, text: string, version = 0): Set<string> {
    this.closeTree(path);
    const doc = TextDocument.create(path, 'text', version, text);
    const entry: OpenDocument = { doc, tree: undefined, stalled: false, pending: false, analysisMs: 0 };
    this.open.set(path, entry);
    return this.reanalyse(path, entry, undefined);
  }

  /** Applies edits to an open document and analyses it at once; returns the affected paths. */
  changeDocument(path: string, changes: readonly TextDocumentContentChangeEvent[], version: number): Set<string> {
    return this.editDocument(path, changes, version) ? this.analysePending(path) : new Set();
  }

  /**
   * Applies edits to an open document (its text and its tree) without
   * analysing it: analysePending does, once for however many edits came.
   * False when the document is not open.
   */
  editDocument(path: string, changes: readonly TextDocumentContentChangeEvent[], version: number): boolean {
    const entry = this.open.get(path);
    if (!entry) return false;
    let tree = entry.tree;
    for (const change of changes) {
      if (tree && 'range' in change) {
        const doc = entry.doc;
        const startIndex = doc.offsetAt(change.range.start);
        const oldEndIndex = doc.offsetAt(change.range.end);
        const start = doc.positionAt(startIndex);
        const oldEnd = doc.positionAt(oldEndIndex);
        // Indices and columns in UTF-16 code units: web-tree-sitter parses JS strings as UTF-16.
        tree.edit({
          startIndex,
          oldEndIndex,
          newEndIndex: startIndex + change.text.length,
          startPosition: { row: start.line, column: start.character },
          oldEndPosition: { row: oldEnd.line, column: oldEnd.character },
          newEndPosition: endPoint(start.line, start.character, change.text),
        });
      } else if (tree) {
        tree.delete();
        tree = undefined;
      }
      entry.doc = TextDocument.update(entry.doc, [change], version);
    }
    entry.tree = tree;
    // Parsing it again would cost the whole budget at every keystroke.
    if (!entry.stalled) entry.pending = true;
    return true;
  }

  /** Analyses the open documents edited since their last analysis (or only `path`); returns the affected paths. */
  analysePending(only?: string): Set<string> {
    const affected = new Set<string>();
    for (const [path, entry] of this.open) {
      if (!entry.pending || (only !== undefined && path !== only)) continue;
      entry.pending = false;
      for (const p of this.reanalyse(path, entry, entry.tree)) affected.add(p);
    }
    return affected;
  }

  /** How long the last analysis of an open document took, in ms (0 when it is not open). */
  lastAnalysisMs(path: string): number {
    return this.open.get(path)?.analysisMs ?? 0;
  }

  /** A document was saved: one whose parse ran out of its budget is parsed again. */
  retryDocument(path: string): Set<string> {
    const entry = this.open.get(path);
    if (!entry?.stalled) return new Set();
    entry.stalled = false;
    return this.reanalyse(path, entry, undefined);
  }

  /** The editor closed a document: fall back to the file on disk (undefined = it no longer exists). */
  closeDocument(path: string, diskContent: FileContent | undefined): Set<string> {
    this.closeTree(path);
    this.open.delete(path);
    return diskContent === undefined ? this.workspace.remove([path]) : this.setFile(path, diskContent);
  }

  dispose(): void {
    for (const path of [...this.open.keys()]) this.closeTree(path);
    this.open.clear();
    this.parser.delete();
  }

  /** Parses a Python text and frees the tree (the benchmark's floor uses the same parser). */
  parseOnly(text: string): void {
    this.parser.parse(text)?.delete();
  }

  private closeTree(path: string): void {
    const entry = this.open.get(path);
    entry?.tree?.delete();
    if (entry) entry.tree = undefined;
  }

  private reanalyse(path: string, entry: OpenDocument, oldTree: Tree | undefined): Set<string> {
    const started = performance.now();
    try {
      return this.analyseOpen(path, entry, oldTree);
    } finally {
      entry.analysisMs = performance.now() - started;
    }
  }

  private analyseOpen(path: string, entry: OpenDocument, oldTree: Tree | undefined): Set<string> {
    const text = entry.doc.getText();
    let facts: FileFacts | undefined;
    if (fileKind(path) === 'python' && !this.tooLarge(text)) {
      const parsed = parseWithin(this.parser, text, this.parseBudget, oldTree);
      oldTree?.delete();
      entry.tree = parsed?.tree;
      entry.stalled = parsed?.stalledAt !== undefined;
      facts = this.pythonFacts(path, text, parsed, true);
    } else {
      oldTree?.delete();
      entry.tree = undefined;
      facts = this.factsFor(path, text);
    }
    if (facts) return this.workspace.setFacts([[path, facts]]);
    return this.workspace.has(path) ? this.workspace.remove([path]) : new Set();
  }

  get maxBytes(): number {
    return this.maxFileBytes;
  }

  private tooLarge(content: FileContent): boolean {
    if (isOversized(content)) return true;
    const bytes =
      typeof content === 'string'
        ? content.length > this.maxFileBytes / 3
          ? Buffer.byteLength(content)
          : content.length
        : content.byteLength;
    return bytes > this.maxFileBytes;
  }

  /**
   * Facts of several closed files, in order. Python files are parsed a batch
   * at a time and then extracted: alternating one parse with one extraction
   * made each evict the other's working set from the CPU caches (measured:
   * about 0.15x the parse time). A tree is freed right after its parse when
   * the recent extractions rarely asked theirs for nodes (treeKeeping.ts,
   * moduleTree.ts), else as soon as its file is read, so at most
   * KEPT_TREES_BATCH trees are alive at once.
   */
  private factsForBatch(entries: [string, FileContent][]): [string, FileFacts | undefined][] {
    // Per batch, not per file: a clock read per file would weigh on what it measures.
    const t0 = this.phases ? cpuMs() : 0;
    const texts: (string | undefined)[] = entries.map(([path, content]) =>
      fileKind(path) === 'python' && !this.tooLarge(content) && !isOversized(content) ? decodeText(content) : undefined,
    );
    const parsed: (ModuleTree | BudgetedParse | undefined)[] = texts.map((text) => {
      if (text === undefined) return undefined;
      const p = parseWithin(this.parser, text, this.parseBudget);
      if (!p?.tree) return p;
      return ModuleTree.owning(p.tree, !this.treeKeeping.keepTrees(), () => this.parseAgain(text));
    });
    const t1 = this.phases ? cpuMs() : 0;
    if (this.phases) this.phases.parse += t1 - t0;
    try {
      return entries.map(([path, content], i) => {
        const text = texts[i];
        const p = parsed[i];
        if (text === undefined) return [path, this.factsFor(path, content)];
        if (!(p instanceof ModuleTree)) return [path, this.pythonFacts(path, text, p, false)];
        try {
          return [path, extractPythonFacts(p, text)];
        } finally {
          p.release();
          parsed[i] = undefined;
          if (!p.hasError) this.treeKeeping.noteExtracted(p.asked, text.length);
        }
      });
    } finally {
      for (const p of parsed) if (p instanceof ModuleTree) p.release();
      if (this.phases) this.phases.extract += cpuMs() - t1;
    }
  }

  /** The tree of a text parsed once already, within its budget, when its extraction asks for nodes. */
  private parseAgain(text: string): Tree {
    const tree = this.parser.parse(text);
    if (!tree) throw new Error('tree-sitter gave no tree for a text it had parsed before');
    return tree;
  }

  /** Facts of a parsed Python text; `open`: an open document (see slowParseFacts). */
  private pythonFacts(
    path: string,
    text: string,
    parsed: BudgetedParse | undefined,
    open: boolean,
  ): FileFacts | undefined {
    if (!parsed) return undefined;
    if (parsed.tree) return extractPythonFacts(ModuleTree.borrowing(parsed.tree), text);
    return slowParseFacts(path, text, parsed.stalledAt, budgetMs(this.parseBudget, text), open);
  }

  private factsFor(path: string, content: FileContent): FileFacts | undefined {
    const kind = fileKind(path);
    if (!kind) return undefined;
    if (this.tooLarge(content)) {
      // Big JSON files are data far more often than task lists: leave them out silently.
      if (kind === 'json' || kind === 'golden') return undefined;
      const mb = (this.maxFileBytes / (1024 * 1024)).toFixed(0);
      return {
        kind: 'skipped',
        problems: [
          problem(
            'file-too-large',
            ZERO_RANGE,
            `${basename(path)} is larger than ${mb} MB, so HUD Studio does not index it (fix: split it into smaller modules if it defines templates or tasks)`,
          ),
        ],
      };
    }
    if (isOversized(content)) return undefined;
    const text = decodeText(content);
    switch (kind) {
      case 'python': {
        const parsed = parseWithin(this.parser, text, this.parseBudget);
        try {
          return this.pythonFacts(path, text, parsed, false);
        } finally {
          parsed?.tree?.delete();
        }
      }
      case 'json':
        return extractJsonTasks(text, path);
      case 'golden':
        return extractGoldenFacts(text);
      case 'harbor':
        return extractHarborFacts(text, this.workspace.relOf(dirname(path)));
      case 'compose':
        return extractComposeFacts(text, path);
    }
  }
}

function endPoint(row: number, column: number, text: string): { row: number; column: number } {
  const last = text.lastIndexOf('\n');
  if (last < 0) return { row, column: column + text.length };
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
  return { row: row + lines, column: text.length - last - 1 };
}
