/**
 * The Testing view: every task is a test item (file -> task, ids = task
 * references), with one run profile per agent kind and one per configured
 * model (hudStudio.models, the llm agent). Golden answers are items too,
 * one per row or Harbor solution, run through the grading path whatever the
 * profile (docs/grader-workbench.md). The verdicts and messages come from
 * ../outcome.ts and ../goldenReport.ts; this file only maps them onto the
 * Testing API.
 */
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import { type RolloutOutcome, testMessage, verdict } from '../outcome';
import { AGENT_KINDS, type AgentKind, type ModelSetting, batchAgentOf } from '../settings';
import { testTree } from '../testTree';
import { describeExpectation } from '../../../common/golden/expect';
import { hasHarborGolden, readHarborGolden, solutionLabel } from '../../../common/golden/solutions';
import type { GoldenOutcome } from '../engine/golden/run';
import { goldenReport } from '../goldenReport';
import { TestingTaskLines } from '../inlineResults';
import { taskKey } from '../taskLookup';
import { goldenTree, type GoldenTarget, type HarborSolutionEntry } from '../goldenTree';
import { readSettings } from './config';
import type { GoldenRunRequest, GoldenRunResult } from './goldenRunner';
import { editorModelNames } from './languageModels';
import type { RunRequest, RunResult, RunTarget } from './runner';
import { forTerminal } from '../terminalText';

const PROFILE_LABEL: Record<AgentKind, string> = {
  fixed: 'Run with the fixed answer',
  command: 'Run with the command agent',
  nop: 'Run with the nop agent',
  ask: 'Run and answer yourself (one task)',
};

export class TaskTests implements vscode.Disposable {
  readonly controller = vscode.tests.createTestController('hudStudio', 'HUD Tasks');
  /** The task lines whose Testing message VS Code draws now, from this view's last report of each task. */
  readonly taskLines = new TestingTaskLines();
  private readonly profiles = new Map<AgentKind, vscode.TestRunProfile>();
  private modelProfiles: vscode.TestRunProfile[] = [];
  private profilesUpdate: Promise<void> = Promise.resolve();
  private readonly subs: vscode.Disposable[] = [];
  /** What each golden item runs, by item id. */
  private goldenTargets = new Map<string, GoldenTarget>();

  constructor(
    private readonly run: (req: RunRequest) => Promise<RunResult>,
    private readonly relativePath: (uri: string) => string,
    private readonly runGolden: (req: GoldenRunRequest) => Promise<GoldenRunResult>,
  ) {
    for (const kind of AGENT_KINDS) {
      const profile = this.controller.createRunProfile(
        PROFILE_LABEL[kind],
        vscode.TestRunProfileKind.Run,
        (request, token) => this.execute(kind, request, token),
        false,
      );
      this.profiles.set(kind, profile);
    }
    this.updateDefaultProfile();
    this.updateModelProfiles();
    this.subs.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('hudStudio.agent') || e.affectsConfiguration('hudStudio.batchAgent'))
          this.updateDefaultProfile();
        if (e.affectsConfiguration('hudStudio.models')) this.updateModelProfiles();
      }),
      vscode.lm.onDidChangeChatModels(() => this.updateModelProfiles()),
    );
    this.controller.refreshHandler = async () => {
      await vscode.commands.executeCommand('hudStudio.refresh');
    };
  }

  /** The default profile ("Run All", the gutter's Run) is the configured non-interactive agent. */
  private updateDefaultProfile(): void {
    const batch = batchAgentOf(readSettings());
    for (const [kind, p] of this.profiles) p.isDefault = kind === batch;
  }

  /**
   * One "Run with MODEL" profile per entry of hudStudio.models and per chat
   * model this VS Code offers (vscode/ID), rebuilt when either changes.
   */
  private updateModelProfiles(): void {
    // One rebuild at a time: each disposes the profiles the previous one made.
    this.profilesUpdate = this.profilesUpdate.then(() => this.rebuildModelProfiles());
  }

  private async rebuildModelProfiles(): Promise<void> {
    const offered = (await editorModelNames()).map((model) => ({ model }));
    for (const p of this.modelProfiles) p.dispose();
    this.modelProfiles = [...readSettings().models, ...offered].map((model) =>
      this.controller.createRunProfile(
        `Run with ${model.model}`,
        vscode.TestRunProfileKind.Run,
        (request, token) => this.execute('nop', request, token, model),
        false,
      ),
    );
  }

  setIndex(index: WorkspaceIndex): void {
    const files = testTree(index, this.relativePath);
    const fileItems: vscode.TestItem[] = [];
    for (const f of files) {
      const uri = vscode.Uri.parse(f.uri);
      const fileItem = this.controller.items.get(f.id) ?? this.controller.createTestItem(f.id, f.label, uri);
      fileItem.label = f.label;
      const tasks = f.tasks.map((t) => {
        const item = fileItem.children.get(t.id) ?? this.controller.createTestItem(t.id, t.label, uri);
        item.label = t.label;
        item.description = t.description ?? '';
        item.range = new vscode.Range(
          t.range.start.line,
          t.range.start.character,
          t.range.end.line,
          t.range.end.character,
        );
        return item;
      });
      fileItem.children.replace(tasks);
      fileItems.push(fileItem);
    }
    const targets = new Map<string, GoldenTarget>();
    for (const g of goldenTree(index, this.relativePath, harborSolutions)) {
      const groupItem =
        this.controller.items.get(g.id) ?? this.controller.createTestItem(g.id, g.label, vscode.Uri.parse(g.uri));
      groupItem.label = g.label;
      groupItem.description = 'golden answers';
      groupItem.children.replace(
        g.items.map((row) => {
          const uri = vscode.Uri.parse(row.uri);
          const item = groupItem.children.get(row.id) ?? this.controller.createTestItem(row.id, row.label, uri);
          item.label = row.label;
          item.description = row.description;
          item.range = toRange(row.range);
          targets.set(row.id, row.target);
          return item;
        }),
      );
      fileItems.push(groupItem);
    }
    this.goldenTargets = targets;
    this.controller.items.replace(fileItems);
  }

  /** Records a run started outside the Testing view (CodeLens, views), so gutter icons and history follow it. */
  recordEditorRun(target: RunTarget, outcome: RolloutOutcome, durationMs: number | undefined): void {
    // A file's item id is its URI as the index spells it (../testTree.ts); a task's is its reference.
    let item = this.controller.items.get(target.uri)?.children.get(target.ref);
    this.controller.items.forEach((f) => (item ??= f.children.get(target.ref)));
    if (!item) return;
    const run = this.controller.createTestRun(new vscode.TestRunRequest([item]), `HUD task ${item.label}`, true);
    this.report(run, item, outcome, durationMs);
    run.end();
  }

  private report(
    run: vscode.TestRun,
    item: vscode.TestItem,
    outcome: RolloutOutcome,
    duration: number | undefined,
  ): void {
    // The task file's threshold, the one the editor's inline results are judged by too (extension.ts).
    const threshold = readSettings(item.uri).passThreshold;
    const text = testMessage(outcome, threshold);
    // VS Code draws a failed or errored message at the end of the task's line (the item's range, with or
    // without a location); HUD Studio's own inline text yields there (../inlineResults.ts).
    const message = new vscode.TestMessage(text);
    if (item.uri && item.range) message.location = new vscode.Location(item.uri, item.range);
    run.appendOutput(outputLine(item.id, text), undefined, item);
    const v = verdict(outcome, threshold);
    this.taskLines.reported(taskKey(item.id, item.parent?.id ?? ''), v);
    switch (v) {
      case 'passed':
        run.passed(item, duration);
        break;
      case 'failed':
        run.failed(item, message, duration);
        break;
      case 'errored':
        run.errored(item, message, duration);
        break;
      case 'skipped':
        run.skipped(item);
        break;
    }
  }

  private reportGolden(run: vscode.TestRun, item: vscode.TestItem, o: GoldenOutcome, duration: number): void {
    const r = goldenReport(o);
    const message =
      r.expected !== undefined && r.actual !== undefined
        ? vscode.TestMessage.diff(r.message, r.expected, r.actual)
        : new vscode.TestMessage(r.message);
    // The golden row's own line, where nothing of HUD Studio's is drawn.
    if (item.uri && item.range) message.location = new vscode.Location(item.uri, item.range);
    run.appendOutput(outputLine(item.label, r.message), undefined, item);
    if (r.verdict === 'passed') run.passed(item, duration);
    else if (r.verdict === 'failed') run.failed(item, message, duration);
    else run.errored(item, message, duration);
  }

  /** Golden items of a request: graded one by one, whatever agent the profile names. */
  private async executeGolden(run: vscode.TestRun, items: vscode.TestItem[], token: vscode.CancellationToken) {
    const byId = new Map(items.map((i) => [i.id, i]));
    const started = new Map<string, number>();
    const targets = items.flatMap((i) => {
      const target = this.goldenTargets.get(i.id);
      return target ? [{ id: i.id, target }] : [];
    });
    // A failure to start (the engine bundle, the runtime) must not leave the items pending forever.
    const result: GoldenRunResult = await this.runGolden({
      targets,
      token,
      onStarted: (id) => {
        const item = byId.get(id);
        if (!item) return;
        started.set(id, Date.now());
        run.started(item);
      },
      onFinished: (id, outcome) => {
        const item = byId.get(id);
        if (!item) return;
        this.reportGolden(run, item, outcome, Date.now() - (started.get(id) ?? Date.now()));
        byId.delete(id);
      },
    }).catch((err: unknown) => ({ ran: false, reason: err instanceof Error ? err.message : String(err) }));
    if (!result.ran) for (const i of byId.values()) run.errored(i, new vscode.TestMessage(`Not run: ${result.reason}`));
    else for (const i of byId.values()) run.skipped(i);
  }

  private collect(request: vscode.TestRunRequest): vscode.TestItem[] {
    // By the items themselves, not their ids: two folders' tasks may share a reference (their items' ids).
    const excluded = new Set(request.exclude ?? []);
    const out = new Set<vscode.TestItem>();
    const add = (item: vscode.TestItem): void => {
      if (excluded.has(item)) return;
      if (item.children.size === 0) {
        if (item.parent) out.add(item); // a file without tasks has nothing to run
        return;
      }
      item.children.forEach(add);
    };
    if (request.include) request.include.forEach(add);
    else this.controller.items.forEach(add);
    return [...out];
  }

  private async execute(
    kind: AgentKind,
    request: vscode.TestRunRequest,
    token: vscode.CancellationToken,
    model?: ModelSetting,
  ): Promise<void> {
    const all = this.collect(request);
    const golden = all.filter((i) => this.goldenTargets.has(i.id));
    const items = all.filter((i) => !this.goldenTargets.has(i.id));
    const run = this.controller.createTestRun(request, `HUD tasks (${model ? model.model : `${kind} agent`})`, true);
    for (const i of golden) run.enqueued(i);
    if (!items.length) {
      try {
        await this.executeGolden(run, golden, token);
      } finally {
        run.end();
      }
      return;
    }
    // Two folders' tasks may share a reference: a task is its reference in its file, spelled as the index
    // spells it (the file item's id), which the runner looks the task up by.
    const targets = new Map<string, { item: vscode.TestItem; target: RunTarget }>();
    for (const i of items) {
      const target: RunTarget = { ref: i.id, uri: i.parent?.id ?? i.uri!.toString(), label: i.label };
      targets.set(taskKey(target.ref, target.uri), { item: i, target });
    }
    const started = new Map<string, number>();
    for (const i of items) run.enqueued(i);
    try {
      const result = await this.run({
        targets: [...targets.values()].map((t) => t.target),
        label: items.length === 1 ? `Test ${items[0]!.label}` : `Test ${items.length} tasks`,
        agent: kind,
        ...(model ? { model } : {}),
        interactive: false,
        token,
        onStarted: (t) => {
          const key = taskKey(t.ref, t.uri);
          const item = targets.get(key)?.item;
          if (!item) return;
          started.set(key, Date.now());
          run.started(item);
        },
        onFinished: (t, outcome) => {
          const key = taskKey(t.ref, t.uri);
          const item = targets.get(key)?.item;
          if (!item) return;
          const duration = started.has(key) ? Date.now() - started.get(key)! : undefined;
          this.report(run, item, outcome, duration);
          targets.delete(key);
        },
      });
      const left = [...targets.values()].map((t) => t.item);
      if (!result.ran) for (const i of left) run.errored(i, new vscode.TestMessage(`Not run: ${result.reason}`));
      else for (const i of left) run.skipped(i); // cancelled before it started
      if (golden.length) await this.executeGolden(run, golden, token);
    } finally {
      run.end();
    }
  }

  dispose(): void {
    for (const p of this.modelProfiles) p.dispose();
    for (const s of this.subs) s.dispose();
    this.controller.dispose();
  }
}

function toRange(r: { start: { line: number; character: number }; end: { line: number; character: number } }) {
  return new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character);
}

/** A Harbor task's golden solutions, read from its folder when the index changes. */
function harborSolutions(taskUri: string): HarborSolutionEntry[] {
  const dir = dirname(vscode.Uri.parse(taskUri).fsPath);
  if (!hasHarborGolden(dir)) return [];
  return readHarborGolden(dir).solutions.map((s) => ({
    solution: solutionLabel(s),
    uri: vscode.Uri.file(`${s.dir}/solve.sh`).toString(),
    expect: describeExpectation(s.expect),
  }));
}

/**
 * A line of the Testing view's output pane, a terminal: what a run reported may quote an agent's output, so
 * its control characters are shown, not acted on (../terminalText.ts), and its lines end the way a terminal's do.
 */
function outputLine(name: string, text: string): string {
  return `${name}: ${forTerminal(text, '').replace(/\n/g, '\r\n')}\r\n`;
}
