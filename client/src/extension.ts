/**
 * Extension entry point: wires the language server's index and the engine's
 * rollout events into views, the Testing API, the editor and the trace
 * explorer. Activation stays cheap: the engine (and dockerode) load on the
 * first run, past traces after start-up.
 */
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { EventHub } from '../../common/events';
import type { RunningTrace, Trace } from '../../common/trace/schema';
import { listTraceFiles, readTrace } from './engine/trace/store';
import { EnvironmentsModel } from './environmentsModel';
import { inlineResults } from './inlineResults';
import { score } from './outcome';
import { formatEvent } from './rolloutLog';
import { RunsModel, labelOfRef } from './runsModel';
import { commandRegistrar, registerCommands } from './ui/commands';
import { RegradeLens, TemplateSources, registerRegrade } from './ui/regrade';
import { registerSanity } from './ui/sanity';
import { StoredTraces } from './storedTraces';
import { isStale, staleText } from './templateSource';
import { readSettings } from './ui/config';
import { InlineResultDecorations } from './ui/decorations';
import { EnvironmentsView } from './ui/environmentsView';
import { IndexClient } from './ui/indexClient';
import { newEnvironment } from './ui/newEnvironment';
import type { RunRequest, Runner } from './ui/runner';
import { RunsView } from './ui/runsView';
import { JOB_VIEW_TYPE, JobView } from './ui/jobView';
import { ModelKeys } from './ui/modelKeys';
import { EnvironmentSecrets } from './ui/secrets';
import { RunningStatus } from './ui/statusBar';
import { TaskTests } from './ui/testing';
import { TRACE_EDITOR_VIEW_TYPE, TraceExplorer } from './ui/traceExplorer';
import { TraceLens } from './ui/traceLens';

/** Past traces shown in the Runs view at start-up, per workspace folder. */
const HISTORY = 20;

let stopIndexClient: (() => Promise<void>) | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const t0 = performance.now();
  const sub = <T extends vscode.Disposable>(d: T): T => {
    context.subscriptions.push(d);
    return d;
  };
  const rolloutLog = sub(vscode.window.createOutputChannel('HUD Rollouts', 'hud-rollout-log'));
  const studioLog = sub(vscode.window.createOutputChannel('HUD Studio', { log: true }));
  const relativePath = (uri: string) =>
    vscode.workspace.asRelativePath(vscode.Uri.parse(uri), (vscode.workspace.workspaceFolders?.length ?? 0) > 1);

  const hub = new EventHub();
  const runs = new RunsModel();
  /** The trace folder of a file's workspace folder: what ties a stored run to its folder's task. */
  const traceDirOf = (uri: string): string | undefined => {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri));
    return folder && traceDirs([folder])[0];
  };
  const envModel = new EnvironmentsModel(relativePath, traceDirOf);
  const envView = sub(new EnvironmentsView(envModel));
  const runsView = sub(new RunsView(runs));
  const status = sub(new RunningStatus());
  const decorations = sub(new InlineResultDecorations());
  const traceLens = sub(new TraceLens((rolloutId) => staleNote(rolloutId)));
  const stored = new StoredTraces((line) => studioLog.warn(line));
  const sources = new TemplateSources();
  const regradeLens = sub(new RegradeLens(stored, sources, traceDirOf));
  /** Trace folders are read again at most every 500 ms: a job's rollouts end in bursts. */
  let rescanTimer: NodeJS.Timeout | undefined;
  const rescanNow = () => {
    stored.scan(traceDirs());
    regradeLens.refresh();
  };
  const rescanSoon = () => {
    rescanTimer ??= setTimeout(() => {
      rescanTimer = undefined;
      rescanNow();
      runs.setStaleness(stalenessOf);
      explorer.refreshStale();
    }, 500);
  };
  sub({ dispose: () => rescanTimer && clearTimeout(rescanTimer) });
  /** A rollout's stored trace holds the template source it ran; a live one does not. */
  const stalenessOf = (t: RunningTrace) => sources.staleness(stored.byId(t.rolloutId)?.trace ?? t);
  const staleNote = (rolloutId: string): string | undefined => {
    const t = traceOf(rolloutId);
    const s = t && sources.staleness(t);
    return s && isStale(s) ? staleText(s) : undefined;
  };
  const traceOf = (rolloutId: string): Trace | undefined => {
    const known = stored.byId(rolloutId)?.trace;
    if (known) return known;
    const path = runs.rollout(rolloutId)?.tracePath;
    try {
      return path ? readTrace(path) : undefined;
    } catch {
      return undefined;
    }
  };
  const secrets = new EnvironmentSecrets(context);
  const modelKeys = new ModelKeys(context);
  for (const d of modelKeys.register()) context.subscriptions.push(d);
  const indexClient = sub(new IndexClient(context, studioLog));
  stopIndexClient = () => indexClient.dispose();

  hub.on((e) => runs.apply(e));
  hub.onJob((e) => runs.startJob(e.jobId, e.label));
  hub.on((e) => {
    for (const line of formatEvent(e)) rolloutLog.appendLine(line);
  });

  const explorer = sub(
    new TraceExplorer(
      context,
      async (ref) => {
        await vscode.commands.executeCommand('hudStudio.openTask', ref);
      },
      (rolloutId) => staleNote(rolloutId),
    ),
  );
  hub.on((e) => explorer.onEvent(e));

  let runner: Promise<Runner> | undefined;
  const getRunner = (): Promise<Runner> =>
    (runner ??= loadRunner()
      .then(({ Runner }) =>
        sub(
          new Runner(
            hub,
            secrets,
            () => indexClient.index,
            rolloutLog,
            () => modelKeys.env(),
          ),
        ),
      )
      .catch((err: unknown) => {
        runner = undefined; // let the next run try again instead of failing forever
        throw err;
      }));
  const run = async (req: RunRequest) => (await getRunner()).run(req);

  let lastText: string | undefined;
  /** After every rollout, whoever started it: inline results, the trace lens, the status bar. */
  const afterRun: NonNullable<RunRequest['onFinished']> = (target, outcome, actorGrade, rolloutId) => {
    // Every editor and Testing run reaches the Testing view (recordEditorRun or TaskTests' own report).
    const threshold = readSettings(vscode.Uri.parse(target.uri)).passThreshold;
    decorations.show(inlineResults(indexClient.index, target, outcome, actorGrade, threshold));
    if (rolloutId) traceLens.record(target, { rolloutId, outcome });
    rescanSoon();
    lastText = `${target.label} ${outcome.reward === null ? outcome.status : score(outcome.reward)}`;
    status.update(runs.runningCount(), lastText);
  };

  const tests = sub(
    new TaskTests(
      (req) =>
        run({
          ...req,
          onFinished: (...a) => {
            req.onFinished?.(...a);
            afterRun(...a);
          },
        }),
      relativePath,
      async (req) => {
        const targets = new Map(req.targets.map((t) => [t.id, t.target]));
        return (await getRunner()).runGolden({
          ...req,
          onFinished: (id, outcome) => {
            req.onFinished(id, outcome);
            const target = targets.get(id);
            if (outcome.passed && target?.kind === 'row') sanityProblems.goldenRowPassed(target.uri, target.line);
          },
        });
      },
    ),
  );

  // One meaning of pass and fail: every tree uses the Testing view's threshold.
  const applyThreshold = () => {
    const threshold = readSettings().passThreshold;
    envModel.threshold = threshold;
    runs.setThreshold(threshold);
  };
  applyThreshold();
  sub(
    vscode.workspace.onDidChangeConfiguration(
      (e) => e.affectsConfiguration('hudStudio.passThreshold') && applyThreshold(),
    ),
  );

  runs.onChange(() => {
    envModel.setOutcomes(runs.lastOutcomes());
    envView.refresh();
    status.update(runs.runningCount(), lastText);
  });

  indexClient.onDidChange((index) => {
    envModel.setIndex(index);
    envView.refresh();
    tests.setIndex(index);
    traceLens.setIndex(index);
    sources.setIndex(index);
    regradeLens.setIndex(index);
    runs.setStaleness(stalenessOf);
    explorer.refreshStale();
    traceLens.refresh();
    storedSource.refresh();
    void vscode.commands.executeCommand('setContext', 'hudStudio.hasTasks', index.tasks.length > 0);
  });

  sub(vscode.window.registerTreeDataProvider('hudStudio.environments', envView));
  sub(vscode.window.createTreeView('hudStudio.runs', { treeDataProvider: runsView, showCollapseAll: true }));
  sub(
    vscode.languages.registerCodeLensProvider(
      [
        { scheme: 'file', language: 'python' },
        { scheme: 'file', pattern: '**/task.toml' },
        { scheme: 'file', pattern: '**/*.{json,jsonl}' },
      ],
      traceLens,
    ),
  );
  sub(vscode.languages.registerCodeLensProvider({ scheme: 'file', language: 'python' }, regradeLens));
  sub(
    vscode.window.registerCustomEditorProvider(
      JOB_VIEW_TYPE,
      new JobView(context, (left, right, title) => explorer.openCompare(left, right, title)),
    ),
  );
  sub(
    vscode.window.registerCustomEditorProvider(TRACE_EDITOR_VIEW_TYPE, explorer, {
      supportsMultipleEditorsPerDocument: true,
      webviewOptions: { retainContextWhenHidden: false },
    }),
  );

  sub(vscode.commands.registerCommand('hudStudio.newEnvironment', (target?: vscode.Uri) => newEnvironment(target)));
  registerCommands(context, {
    index: () => indexClient.index,
    locate: (node) => envModel.location(node),
    runs,
    run,
    cancelAll: () => void runner?.then((r) => r.cancelAll()),
    refresh: () => indexClient.refresh(),
    openTrace: (rolloutId) => {
      const r = runs.rollout(rolloutId);
      explorer.openRollout(rolloutId, r?.tracePath, r ? labelOfRef(r.trace.task.ref) : rolloutId);
    },
    openTraceFile: (uri) => explorer.openFile(uri),
    compareTraces: (left, right, title) => explorer.openCompare(left, right, title),
    setSecret: () => secrets.promptSet([...new Set(indexClient.index.environments.map((e) => e.name))].sort()),
    deleteSecret: () => secrets.promptDelete(),
    rolloutLog,
    log: studioLog,
    onFinished: (target, outcome, actorGrade, rolloutId) => {
      afterRun(target, outcome, actorGrade, rolloutId);
      const started = runs.rollout(rolloutId)?.trace.startedAt;
      tests.recordEditorRun(target, outcome, started ? Date.now() - Date.parse(started) : undefined);
    },
  });

  const storedSource = registerRegrade(
    context,
    {
      index: () => indexClient.index,
      stored,
      rescan: rescanNow,
      runs,
      regrade: async (req) => (await getRunner()).regrade(req),
      showInline: (results) => decorations.show(results),
      testingHolds: (task) => tests.taskLines.holds(task),
      traceDirOf,
      compareTraces: (left, right, title) => explorer.openCompare(left, right, title),
      output: rolloutLog,
    },
    sources,
    traceOf,
    commandRegistrar(context, studioLog),
  );

  const sanityProblems = registerSanity(
    context,
    {
      index: () => indexClient.index,
      locate: (node) => envModel.location(node),
      sanity: async (uri) => (await getRunner()).sanity(uri),
      output: rolloutLog,
    },
    commandRegistrar(context, studioLog),
  );

  // The language server starts in the background: a failure is reported, never an activation error.
  indexClient.start().catch((err: unknown) => {
    studioLog.error(`the HUD Studio language server did not start: ${(err as Error).message}`);
    void vscode.window.showErrorMessage(
      `HUD Studio: the language server did not start (${(err as Error).message}). See the "HUD Studio" output.`,
    );
  });
  setTimeout(() => {
    loadHistory(runs, studioLog, vscode.workspace.workspaceFolders ?? []);
    rescanNow();
  }, 500);
  // A folder added to a multi-root workspace brings its earlier runs, as the first folders did.
  sub(
    vscode.workspace.onDidChangeWorkspaceFolders(({ added }) => {
      loadHistory(runs, studioLog, added);
      rescanSoon();
    }),
  );
  studioLog.info(`HUD Studio activated in ${(performance.now() - t0).toFixed(1)} ms`);
}

/**
 * The runner and the engine under it (dockerode, ssh2, gRPC) are their own
 * bundle, dist/engine.js, loaded when the first run starts: activation never
 * parses them. The path is computed so that esbuild leaves it out of this bundle.
 */
function loadRunner(): Promise<typeof import('./ui/runner')> {
  const file = join(__dirname, 'engine.js');
  // A CommonJS require, not import(): the engine's own require('vscode') must go through the extension host's loader.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return Promise.resolve().then(() => require(file) as typeof import('./ui/runner'));
}

/** The trace folder of each workspace folder (hudStudio.traceFolder). */
function traceDirs(folders: readonly vscode.WorkspaceFolder[] = vscode.workspace.workspaceFolders ?? []): string[] {
  return folders.map((folder) => {
    const setting = readSettings(folder.uri).traceFolder;
    return isAbsolute(setting) ? setting : join(folder.uri.fsPath, setting);
  });
}

/** Shows the latest traces of each of `folders` in the Runs view, so the view survives a reload. */
function loadHistory(runs: RunsModel, log: vscode.LogOutputChannel, folders: readonly vscode.WorkspaceFolder[]): void {
  for (const dir of traceDirs(folders)) {
    for (const file of listTraceFiles(dir).slice(-HISTORY)) {
      try {
        runs.addTrace(readTrace(file), file);
      } catch (err) {
        log.warn(`skipped trace ${file}: ${(err as Error).message}`);
      }
    }
  }
}

export async function deactivate(): Promise<void> {
  // Waiting for the server's shutdown handshake keeps it from outliving the window;
  // the other disposables (running rollouts are cancelled) go with context.subscriptions.
  await stopIndexClient?.();
}
