/**
 * Regrade in the editor (docs/grader-workbench.md, "In the editor"): a
 * CodeLens over each template that grades stored rollouts, the Runs view's
 * and Environments view's "Regrade", the deltas inline, in the Runs view and
 * in the output, stale marks, and "Show Template Diff" (the stored template
 * against the file as it is now).
 */
import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { IndexedTemplate, WorkspaceIndex } from '../../../common/lspMessages';
import type { RunningTrace, Trace } from '../../../common/trace/schema';
import type { EnvNode } from '../environmentsModel';
import { readTrace } from '../engine/trace/store';
import { summarise } from '../engine/regrade/delta';
import type { RegradeResult } from '../engine/regrade/regrade';
import type { InlineResult } from '../inlineResults';
import { type RegradedRun, deltaLine, regradeInlineResults, regradeLensTitle, summaryText } from '../regradeView';
import type { RunsModel, RunsNode } from '../runsModel';
import {
  type StoredRun,
  type StoredTraces,
  runsIn,
  runsOfTasks,
  taskOfRun,
  tasksGradedBy,
  traceFolderOf,
} from '../storedTraces';
import { groupBy } from '../groupBy';
import { findTask, templateOfTask, verifierOfTask } from '../taskLookup';
import { type Staleness, fileWithStoredBlock, isStale, staleText, staleness, templateBlock } from '../templateSource';
import type { RegisterCommand } from './commands';
import { pickRollout, rolloutIdFrom } from './pickRollout';
import { pickTemplate } from './pickTemplate';
import type { RegradeRequest, RegradeRunResult } from './runner';

export const STORED_SOURCE_SCHEME = 'hud-studio-stored';

export interface RegradeDeps {
  index: () => WorkspaceIndex;
  stored: StoredTraces;
  /** Reads the trace folders again (after a run, a regrade, or a change on disk). */
  rescan: () => void;
  runs: RunsModel;
  regrade: (req: RegradeRequest) => Promise<RegradeRunResult>;
  showInline: (results: InlineResult[]) => void;
  /**
   * Whether VS Code's Testing message is drawn on this task's line now
   * (TestingTaskLines, ../inlineResults.ts), by taskKey (../taskLookup.ts).
   */
  testingHolds: (task: string) => boolean;
  /** The trace folder of a file's workspace folder: a stored run is its folder's (taskOfRun, ../storedTraces.ts). */
  traceDirOf: (uri: string) => string | undefined;
  compareTraces: (left: string, right: string, title: string) => void;
  output: vscode.OutputChannel;
}

/**
 * The current source of each template, read from the open document or the
 * file, cut out the way the trace recorded it. Cleared whenever the index
 * changes (every edit the language server sees).
 */
export class TemplateSources {
  private readonly texts = new Map<string, string | undefined>();
  private index: WorkspaceIndex = { version: 0, environments: [], templates: [], tasks: [] };

  setIndex(index: WorkspaceIndex): void {
    this.index = index;
    this.texts.clear();
  }

  fileText(uri: string): string | undefined {
    if (this.texts.has(uri)) return this.texts.get(uri);
    const parsed = vscode.Uri.parse(uri);
    const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === parsed.toString());
    let text: string | undefined;
    try {
      text = open ? open.getText() : readFileSync(parsed.fsPath, 'utf8');
    } catch {
      text = undefined;
    }
    this.texts.set(uri, text);
    return text;
  }

  /** The template and verifier template that grade a task now. */
  gradersOf(ref: string): { template?: IndexedTemplate; verifier?: IndexedTemplate } {
    const task = findTask(this.index.tasks, ref);
    if (!task) return {};
    const template = templateOfTask(this.index, task);
    const verifier = verifierOfTask(this.index, task);
    return { ...(template ? { template } : {}), ...(verifier ? { verifier } : {}) };
  }

  sourceOf(t: IndexedTemplate | undefined): string | undefined {
    if (!t) return undefined;
    const text = this.fileText(t.uri);
    return text === undefined ? undefined : templateBlock(text, t.range.start.line)?.text;
  }

  /** Which graders of a stored rollout differ from the file now; undefined when the task is not indexed. */
  staleness(trace: Pick<RunningTrace, 'task' | 'verifier'>): Staleness | undefined {
    if (trace.task.kind !== 'hud') return undefined;
    const g = this.gradersOf(trace.task.ref);
    if (!g.template) return undefined;
    const template = this.sourceOf(g.template);
    const verifier = this.sourceOf(g.verifier);
    return staleness(trace, {
      ...(template !== undefined ? { template } : {}),
      ...(verifier !== undefined ? { verifier } : {}),
    });
  }
}

/** "Regrade N stored runs" over each template that grades stored rollouts, and a stale mark beside it. */
export class RegradeLens implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.emitter.event;
  private index: WorkspaceIndex = { version: 0, environments: [], templates: [], tasks: [] };

  constructor(
    private readonly stored: StoredTraces,
    private readonly sources: TemplateSources,
    private readonly traceDirOf: (uri: string) => string | undefined = () => undefined,
  ) {}

  setIndex(index: WorkspaceIndex): void {
    this.index = index;
    this.emitter.fire();
  }

  refresh(): void {
    this.emitter.fire();
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const uri = document.uri.toString();
    const out: vscode.CodeLens[] = [];
    for (const tpl of this.index.templates) {
      if (!tpl.gradeYieldRange || vscode.Uri.parse(tpl.uri).toString() !== uri) continue;
      // The stored runs of this file's folder: another folder's copy of the template has its own.
      const runs = runsOfTasks(
        runsIn(this.stored.all(), this.traceDirOf(tpl.uri)),
        tasksGradedBy(this.index, tpl.env, tpl.id),
      );
      if (!runs.length) continue;
      const range = new vscode.Range(tpl.range.start.line, 0, tpl.range.start.line, 0);
      out.push(
        new vscode.CodeLens(range, {
          title: `$(history) ${regradeLensTitle(runs.length)}`,
          tooltip: `Grade the recorded answers of ${tpl.env}/${tpl.id}'s stored rollouts again with this source, without the agent`,
          command: 'hudStudio.regradeTemplate',
          arguments: [{ env: tpl.env, templateId: tpl.id, uri: tpl.uri }],
        }),
      );
      const stale = runs.filter((r) => {
        const s = this.sources.staleness(r.trace);
        return s !== undefined && isStale(s);
      });
      const latest = stale.at(-1);
      if (latest) {
        out.push(
          new vscode.CodeLens(range, {
            title: `$(warning) ${stale.length} of ${runs.length} stale · Show Template Diff`,
            tooltip: 'These stored rollouts ran an older version of this template; open a diff of the latest one',
            command: 'hudStudio.showTemplateDiff',
            arguments: [{ rolloutId: latest.trace.rolloutId }],
          }),
        );
      }
    }
    return out;
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/**
 * Serves the "as it ran" side of a template diff:
 * `hud-studio-stored:/path/env.py?rollout=ID&grader=template|verifier`.
 */
export class StoredSourceProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  /** The "as it ran" side is the file now with the old template in it: it follows the file's edits. */
  refresh(): void {
    for (const d of vscode.workspace.textDocuments) if (d.uri.scheme === STORED_SOURCE_SCHEME) this.emitter.fire(d.uri);
  }

  dispose(): void {
    this.emitter.dispose();
  }

  constructor(
    private readonly traceOf: (rolloutId: string) => Trace | undefined,
    private readonly sources: TemplateSources,
  ) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const q = new URLSearchParams(uri.query);
    const trace = this.traceOf(q.get('rollout') ?? '');
    if (!trace) return '# HUD Studio: the stored rollout is no longer in the trace folder.\n';
    const g = this.sources.gradersOf(trace.task.ref);
    const verifier = q.get('grader') === 'verifier';
    const tpl = verifier ? g.verifier : g.template;
    const stored = verifier ? trace.verifier?.source : trace.task.source;
    const text = tpl && this.sources.fileText(tpl.uri);
    const block = tpl && text !== undefined ? templateBlock(text, tpl.range.start.line) : undefined;
    if (!tpl || text === undefined || !block || stored === undefined) return stored ?? '';
    return fileWithStoredBlock(text, block, stored);
  }
}

type RegradeArg = RunsNode | EnvNode | { rolloutId: string } | { ref: string } | undefined;

export function registerRegrade(
  context: vscode.ExtensionContext,
  d: RegradeDeps,
  sources: TemplateSources,
  traceOf: (rolloutId: string) => Trace | undefined,
  reg: RegisterCommand,
): StoredSourceProvider {
  const storedSource = new StoredSourceProvider(traceOf, sources);
  context.subscriptions.push(
    storedSource,
    vscode.workspace.registerTextDocumentContentProvider(STORED_SOURCE_SCHEME, storedSource),
  );

  /** The stored runs of the folder of file `uri`; every stored run when no file is named. */
  const storedOf = (uri: string | undefined): StoredRun[] =>
    runsIn(d.stored.all(), uri === undefined ? undefined : d.traceDirOf(uri));

  /** Each folder's stored runs are graded again with that folder's sources, in a batch of their own. */
  const regradeRuns = async (originals: StoredRun[], label: string): Promise<void> => {
    if (!originals.length) {
      void vscode.window.showInformationMessage('HUD Studio: no stored runs to regrade here.');
      return;
    }
    for (const runs of groupBy(originals, (o) => traceFolderOf(o.path)).values()) await regradeFolder(runs, label);
  };

  const regradeFolder = async (originals: StoredRun[], label: string): Promise<void> => {
    const task = taskOfRun(d.index(), originals[0]!, d.traceDirOf);
    if (!task) {
      void vscode.window.showWarningMessage(
        `HUD Studio: ${originals[0]!.trace.task.ref} is no longer in the workspace; it cannot be regraded.`,
      );
      return;
    }
    const shown: RegradedRun[] = [];
    let lastPair: { left: string; right: string; ref: string } | undefined;
    d.output.appendLine(`── ${label}: ${originals.length} stored ${originals.length === 1 ? 'run' : 'runs'}`);
    const res = await d.regrade({
      originals,
      label,
      uri: task.uri,
      onResult: (r, originalPath, jobId) => {
        if (r.trace)
          d.runs.addRegrade(jobId, r.trace, r.tracePath, {
            of: r.original.rolloutId,
            originalPath,
            delta: r.delta,
            ...(r.error !== undefined ? { error: r.error } : {}),
          });
        if (r.tracePath) lastPair = { left: originalPath, right: r.tracePath, ref: r.original.task.ref };
        const uri = taskOfRun(d.index(), { path: originalPath, trace: r.original }, d.traceDirOf)?.uri;
        shown.push({
          ref: r.original.task.ref,
          ...(uri ? { uri } : {}),
          delta: r.delta,
          ...(r.error !== undefined ? { error: r.error } : {}),
        });
        d.output.appendLine(outputLine(r));
        d.showInline(regradeInlineResults(d.index(), shown, d.testingHolds));
      },
    });
    d.rescan();
    if (!res.ran) return;
    const summary = summaryText(summarise(res.results.map((r) => r.delta)));
    d.output.appendLine(`   ${summary}`);
    const one = res.results.length === 1 ? res.results[0] : undefined;
    const text =
      one && one.delta
        ? `${label}: ${deltaLine(one.delta)}`
        : one
          ? `${label}: not regraded (${one.error ?? 'unknown reason'})`
          : `${label}: ${summary}`;
    const failed = res.results.some((r) => !r.delta);
    const actions = [...(lastPair && one ? ['Compare'] : []), 'Show Runs', 'Show Output'];
    const show = failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const a = await show(`HUD Studio: ${text}`, ...actions);
    if (a === 'Compare' && lastPair) d.compareTraces(lastPair.left, lastPair.right, `regrade · ${lastPair.ref}`);
    if (a === 'Show Runs') void vscode.commands.executeCommand('hudStudio.runs.focus');
    if (a === 'Show Output') d.output.show(true);
  };

  /** The stored rollout behind a Runs-view rollout: itself, or for a regrade the rollout it graded again. */
  const originalOf = (rolloutId: string): StoredRun | undefined => {
    const r = d.runs.rollout(rolloutId);
    const id = r?.regrade?.of ?? rolloutId;
    const path = r?.regrade?.originalPath ?? r?.tracePath;
    const known = d.stored.byId(id);
    if (known) return known;
    if (!path) return undefined;
    try {
      return { path, trace: readTrace(path) };
    } catch {
      return undefined;
    }
  };

  reg('hudStudio.regradeTemplate', async (arg?: { env: string; templateId: string; uri?: string } | EnvNode) => {
    // No row (a tree that was redrawing as the menu's command landed): ask which template.
    const t =
      arg && 'templateId' in arg
        ? { env: arg.env, templateId: arg.templateId, uri: arg.uri }
        : await pickTemplate(d.index(), 'Regrade the stored runs of which template?').then(
            (p) => p && { env: p.env, templateId: p.id, uri: p.uri },
          );
    if (!t) return;
    d.rescan();
    const refs = tasksGradedBy(d.index(), t.env, t.templateId);
    await regradeRuns(runsOfTasks(storedOf(t.uri), refs), `Regrade ${t.env}/${t.templateId}`);
  });

  reg('hudStudio.regrade', async (arg?: RegradeArg) => {
    // No row (a tree that was redrawing as the menu's command landed): ask which run.
    if (!arg) {
      const r = await pickRollout(d.runs, 'Regrade which run?', true);
      if (!r) return;
      arg = { rolloutId: r.id };
    }
    d.rescan();
    if ('kind' in arg && arg.kind === 'job') {
      const job = d.runs.job(arg.jobId);
      const seen = new Set<string>();
      const originals = (job?.rollouts ?? [])
        .map(originalOf)
        .filter((o): o is StoredRun => !!o && !seen.has(o.trace.rolloutId) && !!seen.add(o.trace.rolloutId));
      await regradeRuns(originals, `Regrade ${job?.label ?? 'job'}`);
      return;
    }
    if ('rolloutId' in arg) {
      const o = originalOf(arg.rolloutId);
      if (!o) {
        void vscode.window.showInformationMessage('HUD Studio: this rollout has no stored trace to regrade.');
        return;
      }
      await regradeRuns([o], `Regrade ${o.trace.task.ref}`);
      return;
    }
    if ('ref' in arg && typeof arg.ref === 'string') {
      const uri = 'uri' in arg && typeof arg.uri === 'string' ? arg.uri : undefined;
      await regradeRuns(runsOfTasks(storedOf(uri), new Set([arg.ref])), `Regrade ${arg.ref}`);
    }
  });

  reg('hudStudio.showTemplateDiff', async (arg?: RunsNode | { rolloutId: string }) => {
    const id = await rolloutIdFrom(d.runs, arg, 'Show what changed in the template since which run?', true);
    if (!id) return;
    const trace = traceOf(id);
    if (!trace) return;
    const s = sources.staleness(trace);
    const g = sources.gradersOf(trace.task.ref);
    const verifier = s?.verifier === true && s.template === false;
    const tpl = verifier ? g.verifier : g.template;
    if (!tpl) {
      void vscode.window.showInformationMessage(`HUD Studio: ${trace.task.ref} is no longer in the workspace.`);
      return;
    }
    const file = vscode.Uri.parse(tpl.uri);
    const left = file.with({
      scheme: STORED_SOURCE_SCHEME,
      query: new URLSearchParams({ rollout: trace.rolloutId, grader: verifier ? 'verifier' : 'template' }).toString(),
    });
    const name = file.path.split('/').at(-1) ?? file.path;
    const why = s && isStale(s) ? staleText(s) : 'unchanged';
    await vscode.commands.executeCommand(
      'vscode.diff',
      left,
      file,
      `${name}: ${tpl.env}/${tpl.id} as run ${trace.rolloutId.slice(0, 8)} ↔ now (${why})`,
    );
  });
  return storedSource;
}

/** The output's line per rollout, as the CLI prints it. */
function outputLine(r: RegradeResult): string {
  const id = r.original.rolloutId.slice(0, 8);
  if (!r.delta) return `   ${id}  not regraded: ${r.error ?? 'unknown reason'}`;
  return `   ${id}  ${deltaLine(r.delta)}${r.stale ? '  (grader changed)' : ''}`;
}
