/**
 * The HUD Studio language server (bundled to dist/server.js). LSP wiring
 * only: all analysis lives in ./analysis and ./features. Transport (stdio or
 * node-ipc) is chosen by the arguments vscode-languageclient passes.
 */
import {
  CodeActionKind,
  createConnection,
  DidChangeWatchedFilesNotification,
  WatchKind,
  FileChangeType,
  ProposedFeatures,
  TextDocumentSyncKind,
  type Connection,
  type Diagnostic,
  type InitializeParams,
  type WorkspaceFolder,
  type WorkspaceFoldersChangeEvent,
} from 'vscode-languageserver/node';
import { stat } from 'node:fs/promises';
import { Analyzer, fileKind } from './analysis/analyzer';
import { DIAGNOSTIC_SOURCE } from './analysis/diagnostics';
import type { FileProblem } from './analysis/facts';
import { isUnder, uriToPath } from './analysis/paths';
import { DEFAULT_EXCLUDED_DIRS, listIndexableFiles, readFiles } from './analysis/scan';
import { codeActions } from './features/codeActions';
import { codeLenses } from './features/codeLens';
import { complete } from './features/completion';
import { hover } from './features/hover';
import { sdkHover } from './features/sdkHover';
import { definition, references } from './features/navigation';
import { documentSymbols, workspaceSymbols } from './features/symbols';
import { parseInitOptions } from './initOptions';
import {
  IndexChangedNotification,
  IndexDeltaRequest,
  IndexRequest,
  type IndexDelta,
  type WorkspaceIndex,
} from '../../common/lspMessages';

const INDEX_NOTIFY_DELAY_MS = 150;
/** An open document whose analysis took this long has its next edits wait EDITS_SETTLE_MS for more. */
const SLOW_ANALYSIS_MS = 20;
const EDITS_SETTLE_MS = 60;

/**
 * The one file watcher of the extension: registered here, dynamically, so the
 * server that knows what it reads decides what is watched. The client has
 * none of its own (two watchers send every save twice).
 */
const WATCHED_FILE_GLOBS = [
  '**/*.py',
  '**/*.json',
  '**/*.jsonl',
  '**/task.toml',
  '**/instruction.md',
  '**/tests/**',
  '**/Dockerfile',
  '**/docker-compose.{yaml,yml}',
  '**/golden/**',
] as const;
const SCAN_BATCH = 256;

const SEVERITY = { error: 1, warning: 2, info: 3 } as const;

function toDiagnostic(p: FileProblem): Diagnostic {
  const d: Diagnostic = {
    range: p.range,
    severity: SEVERITY[p.severity],
    code: p.code,
    source: DIAGNOSTIC_SOURCE,
    message: p.message,
  };
  if (p.fix) d.data = p.fix;
  return d;
}

function folderPaths(folders: readonly WorkspaceFolder[]): string[] {
  return folders.map((f) => uriToPath(f.uri)).filter((p): p is string => !!p);
}

export function startServer(connection: Connection): void {
  let analyzer: Analyzer | undefined;
  let excludeDirs: readonly string[] = DEFAULT_EXCLUDED_DIRS;
  let dynamicWatch = false;
  let folderChanges = false;
  const published = new Set<string>();
  /** Bumped on every open and close, so a slow close never undoes a later open. */
  const opens = new Map<string, number>();
  let notifyTimer: NodeJS.Timeout | undefined;
  let ready: Promise<Analyzer> | undefined;

  const log = (msg: string) => connection.console.log(`[hud-studio] ${msg}`);
  const safe =
    <A extends unknown[], R>(name: string, fallback: R, fn: (...args: A) => R | Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (err) {
        connection.console.error(
          `[hud-studio] ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
        return fallback;
      }
    };

  // Notification handlers return nothing: run the safe wrapper and let it log its own failure.
  const safeNotification =
    <A extends unknown[]>(name: string, fn: (...args: A) => Promise<void>) =>
    (...args: A): void => {
      void safe(name, undefined, fn)(...args);
    };

  const publish = (paths: Iterable<string>) => {
    if (!analyzer) return;
    for (const path of paths) {
      const problems = analyzer.workspace.problems(path);
      if (problems.length === 0 && !published.has(path)) continue;
      if (problems.length) published.add(path);
      else published.delete(path);
      void connection.sendDiagnostics({ uri: analyzer.workspace.uriOf(path), diagnostics: problems.map(toDiagnostic) });
    }
    clearTimeout(notifyTimer);
    notifyTimer = setTimeout(() => {
      if (analyzer) void connection.sendNotification(IndexChangedNotification, { version: analyzer.workspace.version });
    }, INDEX_NOTIFY_DELAY_MS);
  };

  const pathOf = (uri: string): string | undefined => {
    const path = uriToPath(uri);
    if (path && analyzer) analyzer.workspace.setUri(path, uri);
    return path;
  };
  const excluded = (path: string) => path.split(/[\\/]/).some((seg) => excludeDirs.includes(seg));
  /** Whether one of `folders` holds `path`: only files of the workspace folders are read from disk. */
  const inFolders = (folders: readonly string[], path: string) => folders.some((r) => isUnder(r, path));

  connection.onInitialize((params: InitializeParams) => {
    const folders = folderPaths(params.workspaceFolders ?? []);
    const rootUri = params.rootUri ? uriToPath(params.rootUri) : undefined;
    const roots = folders.length ? folders : rootUri ? [rootUri] : [];
    const init = parseInitOptions(params.initializationOptions);
    if (init.problem) connection.console.warn(`[hud-studio] ${init.problem}`);
    if (init.options.excludeDirs) excludeDirs = init.options.excludeDirs;
    dynamicWatch = !!params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
    folderChanges = !!params.capabilities.workspace?.workspaceFolders;
    ready = Analyzer.create({ roots }).then((a) => (analyzer = a));
    return {
      capabilities: {
        // Saves retry a document whose parse ran out of its budget (Analyzer.retryDocument).
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental, save: { includeText: false } },
        codeLensProvider: { resolveProvider: false },
        hoverProvider: true,
        definitionProvider: true,
        referencesProvider: true,
        documentSymbolProvider: true,
        workspaceSymbolProvider: true,
        completionProvider: { triggerCharacters: ['(', ',', '='] },
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        // A folder added to or removed from a multi-root workspace is indexed or forgotten (changeFolders).
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: { name: 'hud-studio-language-server' },
    };
  });

  connection.onInitialized(
    safeNotification('initialized', async () => {
      if (folderChanges)
        connection.workspace.onDidChangeWorkspaceFolders(
          safeNotification('didChangeWorkspaceFolders', (e: WorkspaceFoldersChangeEvent) =>
            afterScans(() => changeFolders(e)),
          ),
        );
      const a = await ready!;
      if (dynamicWatch) {
        await connection.client.register(DidChangeWatchedFilesNotification.type, {
          watchers: [
            ...WATCHED_FILE_GLOBS.map((globPattern) => ({ globPattern })),
            // A folder deleted, moved or copied in is reported as the folder alone, which the globs above never match.
            { globPattern: '**/*', kind: WatchKind.Create | WatchKind.Delete },
          ],
        });
      }
      await afterScans(async () => {
        const started = Date.now();
        const count = await indexFolders(a, a.workspace.roots);
        log(`indexed ${count} files in ${Date.now() - started} ms`);
        publish([]);
      });
    }),
  );

  /**
   * The first scan, then each change of workspace folders, one after the
   * other: a folder removed while a scan still reads it must not come back.
   */
  let scans: Promise<void> = Promise.resolve();
  const afterScans = (work: () => Promise<void>): Promise<void> => {
    const next = scans.then(work);
    scans = next.catch(() => undefined); // the failure is the caller's to report (safeNotification)
    return next;
  };

  /**
   * A folder added to or removed from the workspace. Files no folder holds
   * any more leave the index (an open one stays, as any open file outside
   * the folders does); module names and relative paths count from the new
   * folders, so every file is linked again; an added folder is read like the
   * first scan.
   */
  const changeFolders = async ({ added, removed }: WorkspaceFoldersChangeEvent): Promise<void> => {
    const a = await withAnalyzer();
    const gone = folderPaths(removed);
    const kept = a.workspace.roots.filter((r) => !gone.includes(r));
    const fresh = folderPaths(added).filter((f, i, all) => !kept.includes(f) && all.indexOf(f) === i);
    const roots = [...kept, ...fresh];
    // One pass links every file once: removing the folder's files one by one linked their readers each time.
    const outside = [...a.workspace.paths()].filter((p) => !inFolders(roots, p));
    publish(a.setRoots(roots, outside));
    // A folder inside one already scanned holds nothing new.
    const count = await indexFolders(
      a,
      fresh.filter((f) => !kept.some((r) => isUnder(r, f))),
    );
    log(`workspace folders: ${fresh.length} added, ${gone.length} removed; indexed ${count} files`);
  };

  const analyzerReady = async () => ready ?? Promise.reject(new Error('not initialized'));

  /**
   * Edits to an open document whose last analysis was slow (a module of
   * thousands of generated tasks takes a few hundred ms) wait until the
   * typing settles, so a burst is analysed once instead of queueing an
   * analysis per keystroke; any request or other notification analyses
   * them first (withAnalyzer), so nothing ever answers from stale facts.
   * Fast documents are analysed at each edit, as before.
   */
  let settleTimer: NodeJS.Timeout | undefined;
  const analysePending = () => {
    clearTimeout(settleTimer);
    settleTimer = undefined;
    const affected = analyzer?.analysePending();
    if (affected?.size) publish(affected);
  };

  /** The analyzer, with every pending edit analysed: what all handlers but didChange use. */
  const withAnalyzer = async () => {
    const a = await analyzerReady();
    analysePending();
    return a;
  };

  /** Reads every indexable file under `folders` in batches; returns how many. */
  const indexFolders = async (a: Analyzer, folders: readonly string[]): Promise<number> => {
    const files = await listIndexableFiles(folders, excludeDirs);
    for (let i = 0; i < files.length; i += SCAN_BATCH) {
      const batch = await readFiles(files.slice(i, i + SCAN_BATCH));
      publish(a.setFiles(batch));
      await new Promise((r) => setImmediate(r)); // let edits and requests in between batches
    }
    return files.length;
  };

  /** Forgets `path` and, when it was a folder, everything indexed under it. */
  const forget = (a: Analyzer, path: string, into: Set<string>): void => {
    const add = (s: Set<string>) => s.forEach((p) => into.add(p));
    // Gone from disk is gone from the index, even while an editor still shows the file (struck through):
    // its tasks can no longer run. Saving that editor creates the file again, and the watcher reports it.
    const isFile = a.workspace.has(path);
    const files = isFile ? [path] : [...a.workspace.paths()].filter((p) => isUnder(path, p) && p !== path);
    for (const p of files) if (a.isOpen(p)) add(a.closeDocument(p, undefined));
    // A deleted folder's files in one batch: what read them is linked again once, not once per file.
    add(a.deleteFiles(files.filter((p) => a.workspace.has(p))));
    if (!isFile) add(a.touch(path));
  };

  const isFolder = async (path: string): Promise<boolean> => {
    try {
      return (await stat(path)).isDirectory();
    } catch {
      return false;
    }
  };

  connection.onDidOpenTextDocument(
    safeNotification('didOpen', async ({ textDocument }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      if (!path || !fileKind(path)) return;
      opens.set(path, (opens.get(path) ?? 0) + 1);
      publish(a.openDocument(path, textDocument.text, textDocument.version));
    }),
  );
  connection.onDidChangeTextDocument(
    safeNotification('didChange', async ({ textDocument, contentChanges }) => {
      const a = await analyzerReady();
      const path = pathOf(textDocument.uri);
      if (!path || !a.editDocument(path, contentChanges, textDocument.version)) return;
      if (a.lastAnalysisMs(path) < SLOW_ANALYSIS_MS) analysePending();
      else {
        clearTimeout(settleTimer);
        settleTimer = setTimeout(analysePending, EDITS_SETTLE_MS);
      }
    }),
  );
  connection.onDidSaveTextDocument(
    safeNotification('didSave', async ({ textDocument }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      const affected = path && a.isOpen(path) ? a.retryDocument(path) : undefined;
      // Most saves retry nothing: they must not announce an index change.
      if (affected?.size) publish(affected);
    }),
  );
  connection.onDidCloseTextDocument(
    safeNotification('didClose', async ({ textDocument }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      if (!path || !a.isOpen(path)) return;
      const generation = (opens.get(path) ?? 0) + 1;
      opens.set(path, generation);
      const disk =
        excluded(path) || !inFolders(a.workspace.roots, path)
          ? undefined
          : (await readFiles([path], 1, a.maxBytes))[0]?.[1];
      if (opens.get(path) !== generation) return; // reopened while the file was being read
      publish(a.closeDocument(path, disk));
    }),
  );
  connection.onDidChangeWatchedFiles(
    safeNotification('didChangeWatchedFiles', async ({ changes }) => {
      const a = await withAnalyzer();
      const affected = new Set<string>();
      const add = (s: Set<string>) => s.forEach((p) => affected.add(p));
      // One read per file however many watchers (ours, another client's) reported it: the last kind wins.
      const latest = new Map(changes.map((c) => [c.uri, c]));
      for (const change of latest.values()) {
        const path = pathOf(change.uri);
        // A change reported from a folder just removed from the workspace must not bring its file back.
        if (!path || excluded(path) || !inFolders(a.workspace.roots, path)) continue;
        if (change.type === FileChangeType.Deleted) {
          forget(a, path, affected);
          continue;
        }
        if (change.type === FileChangeType.Created && !fileKind(path) && (await isFolder(path))) {
          await indexFolders(a, [path]);
          add(a.touch(path));
          continue;
        }
        if (fileKind(path)) {
          const content = (await readFiles([path], 1, a.maxBytes))[0]?.[1];
          add(content === undefined ? a.deleteFile(path) : a.setFile(path, content));
        } else {
          add(a.touch(path));
        }
      }
      publish(affected);
    }),
  );

  const emptyIndex: WorkspaceIndex = { version: 0, environments: [], templates: [], tasks: [], golden: [] };
  connection.onRequest(
    IndexRequest,
    safe('index', emptyIndex, async () => (await withAnalyzer()).workspace.index()),
  );
  // What the extension asks for: the parts that changed since the version it holds (common/indexParts.ts).
  connection.onRequest(IndexDeltaRequest, async ({ since, epoch }) => {
    // On a failure the client keeps what it has (an answer that says nothing changed) and the log says why.
    const unchanged: IndexDelta = { version: since, epoch: epoch ?? '', full: false, files: [], removed: [] };
    return safe('indexDelta', unchanged, async () => (await withAnalyzer()).workspace.indexSince(since, epoch))();
  });

  connection.onCodeLens(
    safe('codeLens', [], async ({ textDocument }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      return path ? codeLenses(a.workspace, path) : [];
    }),
  );
  connection.onHover(
    safe('hover', null, async ({ textDocument, position }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      if (!path) return null;
      const found = hover(a.workspace, path, position);
      if (found) return found;
      const facts = a.workspace.facts(path);
      const doc = a.document(path);
      if (facts?.kind !== 'python' || !facts.importsHud || !doc) return null;
      return sdkHover(facts.imports, doc.getText(), doc.offsetAt(position), (o) => doc.positionAt(o));
    }),
  );
  connection.onDefinition(
    safe('definition', [], async ({ textDocument, position }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      return path ? definition(a.workspace, path, position) : [];
    }),
  );
  connection.onReferences(
    safe('references', [], async ({ textDocument, position, context }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      return path ? references(a.workspace, path, position, context.includeDeclaration) : [];
    }),
  );
  connection.onDocumentSymbol(
    safe('documentSymbol', [], async ({ textDocument }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      return path ? documentSymbols(a.workspace, path) : [];
    }),
  );
  connection.onWorkspaceSymbol(
    safe('workspaceSymbol', [], async ({ query }) => workspaceSymbols((await withAnalyzer()).workspace, query)),
  );
  connection.onCompletion(
    safe('completion', [], async ({ textDocument, position }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      const doc = path ? a.document(path) : undefined;
      if (!path || !doc || fileKind(path) !== 'python') return [];
      return complete(a.workspace, path, doc.getText(), doc.offsetAt(position));
    }),
  );

  connection.onCodeAction(
    safe('codeAction', [], async ({ textDocument, context }) => {
      const a = await withAnalyzer();
      const path = pathOf(textDocument.uri);
      const doc = path ? a.document(path) : undefined;
      return doc ? codeActions(textDocument.uri, doc, context.diagnostics) : [];
    }),
  );

  connection.onShutdown(() => {
    clearTimeout(notifyTimer);
    clearTimeout(settleTimer);
    analyzer?.dispose();
    analyzer = undefined;
  });
  connection.listen();
}

// A bad message must never take the server down.
process.on('uncaughtException', (err) => process.stderr.write(`[hud-studio] uncaught: ${err.stack ?? err.message}\n`));
process.on('unhandledRejection', (err) => process.stderr.write(`[hud-studio] unhandled rejection: ${String(err)}\n`));

startServer(createConnection(ProposedFeatures.all));
