/**
 * Starts rollouts for the editor, the views and the Testing view: checks
 * Workspace Trust, picks the runtime (with Docker's fix or the local
 * fallback), builds the agent, gathers each environment's variables, then
 * hands everything to the engine. No rollout logic lives here.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import type { WorkspaceIndex } from '../../../common/lspMessages';
import { parseDotenv } from '../dotenv';
import { createAgent } from '../engine/agents/create';
import { defaultDockerHost, dockerAvailable } from '../engine/docker/client';
import { HudStudioError } from '../engine/errors';
import type { EventHub } from '../../../common/events';
import { runJob, type JobItem } from '../engine/job';
import type { RolloutOutcome } from '../engine/outcome';
import type { SelectedProvider } from '../engine/providers/select';
import { editorModelAgent, isEditorModel } from './languageModels';
import type { AgentRequest, TaskRunRequest } from '../engine/runRequest';
import { selectRuntime } from '../engine/runTask';
import type { GradeResult, Trace } from '../../../common/trace/schema';
import type { RegradeResult } from '../engine/regrade/regrade';
import { regradeRollouts } from '../engine/regrade/regradeRollouts';
import { editorErrorMessage } from '../fixHint';
import { ALWAYS_LOCAL, UNTRUSTED_MESSAGE, USE_LOCAL, dockerMissing, planRuntime } from '../runtimePlan';
import { type AgentKind, type ModelSetting, type Settings, batchAgentOf, harborAgentOf } from '../settings';
import { AskAgent } from './askAgent';
import { runGoldenItems, type GoldenRunRequest, type GoldenRunResult } from './goldenRunner';
import { chooseAnswerSource } from './answerSource';
import { runSanity } from './sanityRunner';
import type { TaskSanity } from '../engine/sanity/run';
import { readSettings } from './config';
import { findTask } from '../taskLookup';
import type { EnvironmentSecrets } from './secrets';

export interface RunTarget {
  /** Task reference relative to its workspace folder. */
  ref: string;
  /** URI of the file that defines it (env.py, task file, task.toml). */
  uri: string;
  label: string;
}

export interface RunRequest {
  targets: RunTarget[];
  /** Job label in the Runs view. */
  label: string;
  /** An explicit agent kind; default: the editor agent for one task, the batch agent for several. */
  agent?: AgentKind;
  /** Send exactly this answer (the fixed agent), e.g. to re-run with an earlier run's answer. */
  answer?: string;
  /** Run the llm agent with this model (one of hudStudio.models) instead of `agent`. */
  model?: ModelSetting;
  /** Editor runs show a progress notification with Cancel and a result message. */
  interactive: boolean;
  token?: vscode.CancellationToken;
  onStarted?: (target: RunTarget) => void;
  onFinished?: (target: RunTarget, outcome: RolloutOutcome, actorGrade: GradeResult | null, rolloutId: string) => void;
}

export type RunResult = { ran: true } | { ran: false; reason: string };

/** Stored rollouts to grade again with the current source (docs/grader-workbench.md). */
export interface RegradeRequest {
  originals: { trace: Trace; path: string }[];
  /** Job label in the Runs view. */
  label: string;
  /** A file in the workspace folder the traces belong to (their task references are relative to it). */
  uri: string;
  onResult?: (result: RegradeResult, originalPath: string, jobId: string) => void;
}

export type SanityRunResult = { ran: true; results: TaskSanity[]; cancelled: boolean } | { ran: false; reason: string };

export type RegradeRunResult = { ran: true; jobId: string; results: RegradeResult[] } | { ran: false; reason: string };

/** A workspace folder's share of a run. */
interface Place {
  folder: vscode.WorkspaceFolder;
  traceDir: string;
  credentials: Record<string, Record<string, string>>;
}

/** Where a run goes: the runtime picked once per job, its name as the engine takes it, and the Docker endpoint. */
export interface Runtime {
  selected: SelectedProvider;
  runtime: string;
  dockerHost: string;
}

export class Runner implements vscode.Disposable {
  private readonly jobs = new Set<AbortController>();
  private autoNoticeShown = false;

  constructor(
    private readonly hub: EventHub,
    private readonly secrets: EnvironmentSecrets,
    private readonly index: () => WorkspaceIndex,
    private readonly log: vscode.OutputChannel,
    /** Keys and gateway address for the llm agent (SecretStorage over the editor's environment). */
    private readonly modelEnv: () => Promise<Record<string, string | undefined>> = () => Promise.resolve({}),
  ) {}

  cancelAll(): void {
    for (const c of this.jobs) c.abort();
  }

  /** Workspace Trust and the workspace folder, checked alike before any run or regrade. */
  private placeOf(uri: string): { folder: vscode.WorkspaceFolder } | { reason: string } {
    if (!vscode.workspace.isTrusted) {
      const reason = UNTRUSTED_MESSAGE;
      void vscode.window.showWarningMessage(`HUD Studio: ${reason}`, 'Manage Workspace Trust').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return { reason };
    }
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri));
    if (!folder) {
      const reason = 'the task is not inside an open workspace folder';
      void vscode.window.showErrorMessage(`HUD Studio: ${reason}.`);
      return { reason };
    }
    return { folder };
  }

  /**
   * Grades stored rollouts again with the current source as one batch,
   * through the engine's regrade entry: the same trust, runtime, Docker
   * endpoint, trace folder and timeouts as a run, shown as one job.
   */
  async regrade(req: RegradeRequest): Promise<RegradeRunResult> {
    if (req.originals.length === 0) return { ran: false, reason: 'no stored runs to regrade' };
    const place = this.placeOf(req.uri);
    if ('reason' in place) return { ran: false, reason: place.reason };
    const settings = readSettings(place.folder.uri);
    const runtime = await this.runtime(settings);
    if (!runtime) return { ran: false, reason: 'no runtime available' };
    const jobId = randomUUID();
    const abort = new AbortController();
    this.jobs.add(abort);
    const traceDir = isAbsolute(settings.traceFolder)
      ? settings.traceFolder
      : join(place.folder.uri.fsPath, settings.traceFolder);
    const results: RegradeResult[] = [];
    const all = async (report: (message: string) => void): Promise<void> => {
      this.hub.emit({
        type: 'job.started',
        jobId,
        label: req.label,
        total: req.originals.length,
        at: new Date().toISOString(),
      });
      report(`0/${req.originals.length}`);
      // One batch: the next stored run's substrate starts while one grades (docs/grader-workbench.md).
      await regradeRollouts(
        req.originals.map((o) => o.trace),
        {
          cwd: place.folder.uri.fsPath,
          runtime: runtime.runtime,
          dockerHost: runtime.dockerHost,
          traceDir,
          context: {
            hub: this.hub,
            jobId,
            selected: runtime.selected,
            signal: abort.signal,
            notice: (line) => this.log.appendLine(`HUD Studio ${line}`),
          },
          onResult: (r, i) => {
            results.push(r);
            report(`${results.length}/${req.originals.length}`);
            req.onResult?.(r, req.originals[i]!.path, jobId);
          },
        },
      );
    };
    try {
      await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `HUD Studio: ${req.label}`, cancellable: true },
        async (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          await all((message) => progress.report({ message }));
        },
      );
    } catch (err) {
      void vscode.window.showErrorMessage(`HUD Studio: ${editorErrorMessage(err)}`);
    } finally {
      this.jobs.delete(abort);
    }
    return { ran: true, jobId, results };
  }

  /** The sanity check of one env.py (docs/grader-workbench.md, "In the editor"), with progress and Cancel. */
  async sanity(uri: string): Promise<SanityRunResult> {
    const place = this.placeOf(uri);
    if ('reason' in place) return { ran: false, reason: place.reason };
    const prepared = await this.prepareGrading(uri);
    if (!prepared.ok) return { ran: false, reason: prepared.reason };
    const abort = new AbortController();
    this.jobs.add(abort);
    const file = vscode.Uri.parse(uri).fsPath;
    try {
      const results = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'HUD Studio: checking graders', cancellable: true },
        (progress, token) => {
          token.onCancellationRequested(() => abort.abort());
          return runSanity({
            file,
            folder: place.folder.uri.fsPath,
            settings: prepared.settings,
            runtime: prepared.runtime,
            credentials: prepared.credentials,
            signal: abort.signal,
            onTask: (done, total, ref) => progress.report({ message: `${done + 1}/${total} ${ref}` }),
          });
        },
      );
      return { ran: true, results, cancelled: abort.signal.aborted };
    } catch (err) {
      return { ran: false, reason: editorErrorMessage(err) };
    } finally {
      this.jobs.delete(abort);
    }
  }

  async run(req: RunRequest): Promise<RunResult> {
    if (req.targets.length === 0) return { ran: false, reason: 'no tasks to run' };
    const place = this.placeOf(req.targets[0]!.uri);
    if ('reason' in place) return { ran: false, reason: place.reason };
    const folder = place.folder;
    let settings = readSettings(folder.uri);

    let kind: AgentKind =
      req.agent ?? (req.targets.length === 1 && req.interactive ? settings.agent : batchAgentOf(settings));
    if (req.answer !== undefined) {
      kind = 'fixed';
      settings = { ...settings, agentAnswer: req.answer };
    }
    let askEach = false;
    const hudTasks = req.targets.filter((t) => !this.isHarbor(t)).length;
    if (kind === 'fixed' && settings.agentAnswer === '' && req.answer === undefined && hudTasks > 0) {
      const source = await chooseAnswerSource(hudTasks, settings, req.targets.length - hudTasks);
      if (!source) return { ran: false, reason: 'no way to answer was chosen' };
      if (source.kind === 'fixed') settings = { ...settings, agentAnswer: source.answer };
      else kind = source.kind;
      askEach = source.kind === 'ask';
    }
    if (kind === 'ask' && req.targets.length > 1 && !askEach) {
      const reason = 'the ask agent answers one task at a time; a batch uses hudStudio.batchAgent';
      void vscode.window.showWarningMessage(`HUD Studio: ${reason}.`);
      return { ran: false, reason };
    }

    const runtime = await this.runtime(settings);
    if (!runtime) return { ran: false, reason: 'no runtime available' };

    let items: Map<JobItem, RunTarget>;
    try {
      items = await this.items(req, kind, settings, runtime, folder);
    } catch (err) {
      const reason = editorErrorMessage(err);
      void vscode.window.showErrorMessage(`HUD Studio: ${reason}`, 'Open Settings').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'hudStudio');
      });
      return { ran: false, reason };
    }

    const jobId = randomUUID();
    const abort = new AbortController();
    this.jobs.add(abort);
    const tokenSub = req.token?.onCancellationRequested(() => abort.abort());
    const first = items.keys().next().value as JobItem;

    const runAll = async (report?: (message: string) => void): Promise<void> => {
      const follow = this.followJob(items, req, report);
      try {
        await runJob({
          label: req.label,
          items: [...items.keys()],
          jobId,
          // Prompts for a person come one at a time.
          maxConcurrent: kind === 'ask' ? 1 : settings.maxConcurrency,
          threshold: settings.passThreshold,
          selected: runtime.selected,
          // Beside the traces of the folder the job started in, like `hud-studio eval`.
          summaryDir: typeof first.request.traceDir === 'string' ? first.request.traceDir : null,
          hub: this.hub,
          signal: abort.signal,
          notice: (line) => this.log.appendLine(`HUD Studio ${line}`),
          onRunStarting: follow.track,
          onRunEnded: (item, outcome, trace) => {
            const actorGrade = trace?.phases.find((p) => p.name === 'actor')?.grade ?? null;
            req.onFinished?.(items.get(item)!, outcome, actorGrade, outcome.rolloutId);
          },
          onProgress: (p) => {
            if (req.targets.length > 1 && p.done > 0) report?.(`${p.done}/${p.total} done`);
          },
        });
      } finally {
        follow.off();
      }
    };

    try {
      if (req.interactive) {
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: `HUD Studio: ${req.label}`, cancellable: true },
          async (progress, token) => {
            token.onCancellationRequested(() => abort.abort());
            await runAll((message) => progress.report({ message }));
          },
        );
      } else {
        await runAll();
      }
    } catch (err) {
      void vscode.window.showErrorMessage(`HUD Studio: ${editorErrorMessage(err)}`);
    } finally {
      tokenSub?.dispose();
      this.jobs.delete(abort);
    }
    return { ran: true };
  }

  /** Golden answers through the grading path only (see goldenRunner.ts). */
  runGolden(req: GoldenRunRequest): Promise<GoldenRunResult> {
    return runGoldenItems(this, req);
  }

  /**
   * What a grading-only run (golden answers, no agent) needs of the editor:
   * Workspace Trust, the target's folder, its settings and variables, and
   * the runtime, each refused the way a rollout would be.
   */
  async prepareGrading(uri: string): Promise<
    | {
        ok: true;
        folder: vscode.WorkspaceFolder;
        settings: Settings;
        runtime: Runtime;
        credentials: Record<string, Record<string, string>>;
        /** A line in the rollout log, where rollouts tell their story too. */
        log: (line: string) => void;
      }
    | { ok: false; reason: string }
  > {
    if (!vscode.workspace.isTrusted) return { ok: false, reason: UNTRUSTED_MESSAGE };
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(uri));
    if (!folder) return { ok: false, reason: 'the golden file is not inside an open workspace folder' };
    const settings = readSettings(folder.uri);
    const runtime = await this.runtime(settings);
    if (!runtime) return { ok: false, reason: 'no runtime available' };
    try {
      const credentials = await this.credentials(settings, folder.uri.fsPath);
      return { ok: true, folder, settings, runtime, credentials, log: (line) => this.log.appendLine(line) };
    } catch (err) {
      return { ok: false, reason: editorErrorMessage(err) };
    }
  }

  /**
   * Each target's request. Each task runs in its own workspace folder
   * (multi-root): its cwd, trace folder, env files and settings.
   */
  private async items(
    req: RunRequest,
    kind: AgentKind,
    settings: Settings,
    runtime: Runtime,
    folder: vscode.WorkspaceFolder,
  ): Promise<Map<JobItem, RunTarget>> {
    const places = new Map<string, Place>();
    const items = new Map<JobItem, RunTarget>();
    const model = req.model ? { ...req.model, env: await this.modelEnv() } : undefined;
    // A model of this VS Code (vscode.lm) is reached through the editor, once for the whole run.
    const editorAgent: AgentRequest | undefined =
      model && isEditorModel(model.model) ? { instance: await editorModelAgent(model.model) } : undefined;
    for (const target of req.targets) {
      const f = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(target.uri)) ?? folder;
      const key = f.uri.toString();
      let place = places.get(key);
      if (!place) {
        const fs = readSettings(f.uri);
        place = {
          folder: f,
          traceDir: isAbsolute(fs.traceFolder) ? fs.traceFolder : join(f.uri.fsPath, fs.traceFolder),
          credentials: await this.credentials(fs, f.uri.fsPath),
        };
        places.set(key, place);
      }
      items.set({ request: this.request(target, kind, settings, runtime, place, model, editorAgent) }, target);
    }
    return items;
  }

  /** `task`: the target's task of the index, when the caller has looked it up already. */
  private isHarbor(target: RunTarget, task = findTask(this.index().tasks, target.ref, target.uri)): boolean {
    return task ? task.kind === 'harbor' : !target.ref.includes('::');
  }

  private request(
    target: RunTarget,
    kind: AgentKind,
    settings: Settings,
    runtime: Runtime,
    place: Place,
    model?: ModelSetting & { env: Record<string, string | undefined> },
    editorAgent?: AgentRequest,
  ): TaskRunRequest {
    const task = findTask(this.index().tasks, target.ref, target.uri);
    const harbor = this.isHarbor(target, task);
    const image = task?.env ? settings.imageOverrides[task.env] : undefined;
    return {
      ref: target.ref,
      cwd: place.folder.uri.fsPath,
      runtime: runtime.runtime,
      dockerHost: runtime.dockerHost,
      // Harbor tasks run with Harbor's agents (see harborAgentOf).
      agent: harbor
        ? this.harborAgent(kind, settings)
        : model
          ? (editorAgent ?? modelAgent(model))
          : this.agent(kind, settings, target.label),
      limits: {
        startupMs: settings.timeouts.startupSeconds * 1000,
        phaseMs: settings.timeouts.phaseSeconds * 1000,
        rolloutMs: settings.timeouts.rolloutSeconds * 1000,
        callMs: settings.timeouts.callSeconds * 1000,
      },
      consent: { serviceAccess: settings.allowServiceAccess, sharedSecrets: settings.allowSharedSecrets },
      traceDir: place.traceDir,
      credentials: place.credentials,
      ...(image && !harbor ? { image } : {}),
      ...(harbor && (settings.harborAllowEnvironmentHosts.length || settings.harborAllowAgentHosts.length)
        ? {
            extraHosts: {
              environment: settings.harborAllowEnvironmentHosts,
              agent: settings.harborAllowAgentHosts,
            },
          }
        : {}),
      sdk: settings.sdk,
    };
  }

  /**
   * Testing's "started" and the progress notification's steps, from the
   * job's own events. Runs are told apart by the id the job gives each
   * (`track`), not by reference: two folders that each hold an env.py give
   * their tasks the same references.
   */
  private followJob(
    items: Map<JobItem, RunTarget>,
    req: RunRequest,
    report: ((message: string) => void) | undefined,
  ): { track: (item: JobItem, rolloutId: string) => void; off: () => void } {
    const targets = new Map<string, RunTarget>();
    const off = this.hub.on((e) => {
      const target = targets.get(e.rolloutId);
      if (!target) return;
      if (e.type === 'rollout.started') req.onStarted?.(target);
      if (req.targets.length === 1 && report) {
        if (e.type === 'phase.started') report(`${e.phase} phase${e.reused ? ' (same substrate)' : ''}`);
        else if (e.type === 'step' && e.status === 'started') report(`${e.phase}: ${e.step}`);
      }
      if (e.type === 'rollout.ended') targets.delete(e.rolloutId);
    });
    return {
      track: (item, rolloutId) => {
        const target = items.get(item);
        if (target) targets.set(rolloutId, target);
      },
      off,
    };
  }

  private agent(kind: AgentKind, settings: Settings, label: string): AgentRequest {
    if (kind === 'ask') return { instance: new AskAgent(label) };
    const choice = { agent: kind, answer: settings.agentAnswer, command: settings.agentCommand };
    createAgent(choice); // a missing answer or command stops the run here, with the setting that fixes it
    return { choice };
  }

  private harborAgent(kind: AgentKind, settings: Settings): AgentRequest {
    const command = settings.agentCommand || undefined;
    return {
      choice: { agent: harborAgentOf(settings, kind), answer: settings.agentAnswer, ...(command ? { command } : {}) },
    };
  }

  /**
   * The runtime of this run, with Docker's fix or the local fallback offered
   * when Docker was asked for and does not answer. hudStudio.dockerHost wins
   * over the DOCKER_HOST the editor started with; it goes to the engine with
   * the request, never into this process's environment.
   */
  private async runtime(settings: Settings): Promise<Runtime | undefined> {
    const plan = planRuntime(settings);
    if (!plan.ok) {
      const a = await vscode.window.showErrorMessage(`HUD Studio: ${plan.message}`, 'Open Settings');
      if (a) void vscode.commands.executeCommand('workbench.action.openSettings', plan.setting);
      return undefined;
    }
    const dockerHost = settings.dockerHost || defaultDockerHost();
    let runtime: string = plan.runtime;
    if (runtime === 'docker') {
      const probe = await dockerAvailable({ host: dockerHost });
      if (!probe.ok) {
        const text = dockerMissing(probe.reason, settings.dockerHost);
        const choice = await vscode.window.showErrorMessage(
          `HUD Studio: ${text.message}`,
          { detail: text.detail },
          USE_LOCAL,
          ALWAYS_LOCAL,
          'Open Settings',
        );
        if (choice === 'Open Settings')
          void vscode.commands.executeCommand('workbench.action.openSettings', 'hudStudio.dockerHost');
        if (choice === ALWAYS_LOCAL) {
          await vscode.workspace
            .getConfiguration('hudStudio')
            .update('runtime', 'local', vscode.ConfigurationTarget.Workspace);
        }
        if (choice !== USE_LOCAL && choice !== ALWAYS_LOCAL) return undefined;
        runtime = 'local';
      }
    }
    try {
      const selected = await selectRuntime({
        runtime,
        dockerHost,
        consent: { serviceAccess: settings.allowServiceAccess, sharedSecrets: settings.allowSharedSecrets },
      });
      if (selected.notice) {
        this.log.appendLine(`HUD Studio ${selected.notice}`);
        if (!this.autoNoticeShown && selected.provider.kind === 'local') {
          this.autoNoticeShown = true;
          void vscode.window.showInformationMessage(`HUD Studio: ${selected.notice}.`, 'Open Settings').then((a) => {
            if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'hudStudio.runtime');
          });
        }
      }
      return { selected, runtime: selected.provider.kind === 'url' ? runtime : selected.provider.kind, dockerHost };
    } catch (err) {
      void vscode.window.showErrorMessage(`HUD Studio: ${editorErrorMessage(err)}`);
      return undefined;
    }
  }

  /** Each environment's variables: its env file, then its secrets (secrets win). */
  private async credentials(settings: Settings, root: string): Promise<Record<string, Record<string, string>>> {
    const envs = new Set<string>([
      ...Object.keys(settings.envFiles),
      ...this.index().environments.map((e) => e.name),
      ...this.index().templates.map((t) => t.env),
    ]);
    const out: Record<string, Record<string, string>> = {};
    for (const env of envs) {
      const vars: Record<string, string> = {};
      const file = settings.envFiles[env];
      if (file) {
        const path = isAbsolute(file) ? file : join(root, file);
        let text: string;
        try {
          text = await readFile(path, 'utf8');
        } catch (err) {
          throw new HudStudioError(
            'usage',
            `cannot read the env file of environment "${env}": ${(err as Error).message}`,
            {
              location: { file: path },
              hint: 'fix the path in hudStudio.envFiles (relative to the workspace folder)',
            },
          );
        }
        Object.assign(vars, parseDotenv(text, path));
      }
      Object.assign(vars, await this.secrets.forEnvironment(env));
      if (Object.keys(vars).length) out[env] = vars;
    }
    return out;
  }

  dispose(): void {
    this.cancelAll();
  }
}

/** The llm agent for one configured model; a missing key stops the run here with the command that sets it. */
function modelAgent(model: ModelSetting & { env: Record<string, string | undefined> }): AgentRequest {
  const choice = {
    agent: 'llm',
    model: model.model,
    modelEnv: model.env,
    ...(model.baseUrl ? { baseUrl: model.baseUrl } : {}),
  };
  createAgent(choice);
  return { choice };
}
