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
import type { WorkspaceIndex } from '../../../server/src/protocol';
import { parseDotenv } from '../dotenv';
import type { Agent } from '../engine/agents/agent';
import { createAgent } from '../engine/agents/create';
import { HudStudioError, errorMessage } from '../engine/errors';
import { EventHub } from '../engine/events';
import { dockerAvailable } from '../engine/docker/client';
import { selectProvider, type SelectedProvider } from '../engine/providers/select';
import { type RolloutOutcome as EngineOutcome, runRollout } from '../engine/rollout';
import type { GradeResult } from '../engine/trace/schema';
import type { RolloutOutcome } from '../outcome';
import { ALWAYS_LOCAL, UNTRUSTED_MESSAGE, USE_LOCAL, dockerMissing, planRuntime } from '../runtimePlan';
import { type AgentKind, type Settings, batchAgentOf, harborAgentOf } from '../settings';
import { AskAgent } from './askAgent';
import { readSettings } from './config';
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
  /** Editor runs show a progress notification with Cancel and a result message. */
  interactive: boolean;
  token?: vscode.CancellationToken;
  onStarted?: (target: RunTarget) => void;
  onFinished?: (target: RunTarget, outcome: RolloutOutcome, actorGrade: GradeResult | null, rolloutId: string) => void;
}

export type RunResult = { ran: true } | { ran: false; reason: string };

/** A workspace folder's share of a run. */
interface Place {
  folder: vscode.WorkspaceFolder;
  traceDir: string;
  credentials: Record<string, Record<string, string>>;
}

interface RunContext extends Place {
  req: RunRequest;
  kind: AgentKind;
  settings: Settings;
  selected: SelectedProvider;
  /** The runtime as the engine takes it: docker, local or tcp://HOST:PORT (after Docker's check). */
  runtime: string;
  jobId: string;
  signal: AbortSignal;
  report: ((message: string) => void) | undefined;
}

export class Runner implements vscode.Disposable {
  private readonly jobs = new Set<AbortController>();
  private autoNoticeShown = false;
  private readonly originalDockerHost = process.env['DOCKER_HOST'];

  constructor(
    private readonly hub: EventHub,
    private readonly secrets: EnvironmentSecrets,
    private readonly index: () => WorkspaceIndex,
    private readonly log: vscode.OutputChannel,
    private readonly startJob: (jobId: string, label: string) => void,
  ) {}

  cancelAll(): void {
    for (const c of this.jobs) c.abort();
  }

  async run(req: RunRequest): Promise<RunResult> {
    if (!vscode.workspace.isTrusted) {
      const reason = UNTRUSTED_MESSAGE;
      void vscode.window.showWarningMessage(`HUD Studio: ${reason}`, 'Manage Workspace Trust').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return { ran: false, reason };
    }
    if (req.targets.length === 0) return { ran: false, reason: 'no tasks to run' };
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(req.targets[0]!.uri));
    if (!folder) {
      const reason = 'the task is not inside an open workspace folder';
      void vscode.window.showErrorMessage(`HUD Studio: ${reason}.`);
      return { ran: false, reason };
    }
    const settings = readSettings(folder.uri);
    this.applyDockerHost(settings);

    const kind: AgentKind = req.agent ?? (req.targets.length === 1 && req.interactive ? settings.agent : batchAgentOf(settings));
    if (kind === 'ask' && req.targets.length > 1) {
      const reason = 'the ask agent answers one task at a time; a batch uses hudStudio.batchAgent';
      void vscode.window.showWarningMessage(`HUD Studio: ${reason}.`);
      return { ran: false, reason };
    }

    const selected = await this.provider(settings);
    if (!selected) return { ran: false, reason: 'no runtime available' };

    // Each task runs in its own workspace folder (multi-root): its cwd, trace folder and env files.
    const places = new Map<string, Place>();
    try {
      for (const t of req.targets) {
        const f = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(t.uri)) ?? folder;
        const key = f.uri.toString();
        if (places.has(key)) continue;
        const fs = readSettings(f.uri);
        places.set(key, {
          folder: f,
          traceDir: isAbsolute(fs.traceFolder) ? fs.traceFolder : join(f.uri.fsPath, fs.traceFolder),
          credentials: await this.credentials(fs, f.uri.fsPath),
        });
      }
    } catch (err) {
      const reason = errorMessage(err);
      void vscode.window.showErrorMessage(`HUD Studio: ${reason}`, 'Open Settings').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'hudStudio.envFiles');
      });
      return { ran: false, reason };
    }
    const placeOf = (t: RunTarget): Place => places.get((vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(t.uri)) ?? folder).uri.toString())!;

    const jobId = randomUUID();
    this.startJob(jobId, req.label);
    const abort = new AbortController();
    this.jobs.add(abort);
    const tokenSub = req.token?.onCancellationRequested(() => abort.abort());

    const runAll = async (report?: (message: string) => void): Promise<void> => {
      const queue = [...req.targets];
      let done = 0;
      const worker = async (): Promise<void> => {
        for (let t = queue.shift(); t && !abort.signal.aborted; t = queue.shift()) {
          await this.runOne(t, { req, kind, settings, selected: selected.provider, runtime: selected.runtime, ...placeOf(t), jobId, signal: abort.signal, report });
          done++;
          if (req.targets.length > 1) report?.(`${done}/${req.targets.length} done`);
        }
      };
      await Promise.all(Array.from({ length: Math.min(settings.maxConcurrency, req.targets.length) }, worker));
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
    } finally {
      tokenSub?.dispose();
      this.jobs.delete(abort);
    }
    return { ran: true };
  }

  private async runOne(target: RunTarget, c: RunContext): Promise<void> {
    // A hub per rollout: every event on it belongs to this target, whatever ids the engine picks.
    const hub = new EventHub();
    let rolloutId: string | undefined;
    const off = hub.on((e) => {
      rolloutId ??= e.rolloutId;
      this.hub.emit(e);
      if (e.type === 'rollout.started') c.req.onStarted?.(target);
      if (c.req.targets.length === 1 && c.report) {
        if (e.type === 'phase.started') c.report(`${e.phase} phase${e.reused ? ' (same substrate)' : ''}`);
        else if (e.type === 'step' && e.status === 'started') c.report(`${e.phase}: ${e.step}`);
      }
    });
    const failed = (err: unknown): RolloutOutcome => ({ status: 'error', reward: null, result: null, error: { phase: 'setup', message: errorMessage(err) } });
    try {
      const task = this.index().tasks.find((t) => t.ref === target.ref);
      const harbor = task ? task.kind === 'harbor' : !target.ref.includes('::');
      const o = harbor ? await this.runHarbor(target, c, hub) : await this.runHud(target, c, hub, task?.env);
      const actorGrade = o.trace.phases.find((p) => p.name === 'actor')?.grade ?? null;
      c.req.onFinished?.(target, { status: o.status, reward: o.reward, result: o.result, error: o.error, tracePath: o.tracePath }, actorGrade, o.rolloutId);
    } catch (err) {
      // The engine reports task failures in its outcome; what escapes is a wrong reference or a bad agent setting.
      c.req.onFinished?.(target, failed(err), null, rolloutId ?? '');
    } finally {
      off();
    }
  }

  private runHud(target: RunTarget, c: RunContext, hub: EventHub, envName: string | undefined): Promise<EngineOutcome> {
    const image = envName ? c.settings.imageOverrides[envName] : undefined;
    return runRollout({
      ref: target.ref,
      cwd: c.folder.uri.fsPath,
      provider: c.selected.provider,
      agent: this.agent(c.kind, c.settings, target.label),
      hub,
      signal: c.signal,
      jobId: c.jobId,
      traceDir: c.traceDir,
      ...(image ? { image } : {}),
      sdk: c.settings.sdk,
      timeouts: {
        startupMs: c.settings.timeouts.startupSeconds * 1000,
        phaseMs: c.settings.timeouts.phaseSeconds * 1000,
        rolloutMs: c.settings.timeouts.rolloutSeconds * 1000,
      },
      credentials: c.credentials,
      allowSharedSecrets: c.settings.allowSharedSecrets,
      ...(c.selected.dockerHost ? { dockerHost: c.selected.dockerHost } : {}),
    });
  }

  /** Harbor tasks run with Harbor's agents (see harborAgentOf). */
  private async runHarbor(target: RunTarget, c: RunContext, hub: EventHub): Promise<EngineOutcome> {
    const { runHarborTask } = await import('../engine/harbor/run');
    return runHarborTask({
      taskDir: join(c.folder.uri.fsPath, target.ref),
      cwd: c.folder.uri.fsPath,
      agent: harborAgentOf(c.settings, c.kind),
      answer: c.settings.agentAnswer,
      command: c.settings.agentCommand || undefined,
      runtime: c.runtime,
      image: undefined,
      traceDir: c.traceDir,
      timeoutMs: c.settings.timeouts.rolloutSeconds * 1000,
      signal: c.signal,
      hub,
      notice: (line: string) => this.log.appendLine(`HUD Studio ${line}`),
      jobId: c.jobId,
      allowSharedSecrets: c.settings.allowSharedSecrets,
    });
  }

  private agent(kind: AgentKind, settings: Settings, label: string): Agent {
    if (kind === 'ask') return new AskAgent(label);
    if (kind === 'command' && !settings.agentCommand.trim()) {
      throw new HudStudioError('agent', 'the command agent has no command', { hint: 'set hudStudio.agentCommand' });
    }
    return createAgent({ agent: kind, answer: settings.agentAnswer, command: settings.agentCommand });
  }

  /** hudStudio.dockerHost wins over the DOCKER_HOST the editor started with; clearing it restores that. */
  private applyDockerHost(settings: Settings): void {
    const host = settings.dockerHost || this.originalDockerHost;
    if (host) process.env['DOCKER_HOST'] = host;
    else delete process.env['DOCKER_HOST'];
  }

  private async provider(settings: Settings): Promise<{ provider: SelectedProvider; runtime: string } | undefined> {
    const plan = planRuntime(settings);
    if (!plan.ok) {
      const a = await vscode.window.showErrorMessage(`HUD Studio: ${plan.message}`, 'Open Settings');
      if (a) void vscode.commands.executeCommand('workbench.action.openSettings', plan.setting);
      return undefined;
    }
    let runtime: string = plan.runtime;
    if (runtime === 'docker') {
      const probe = await dockerAvailable();
      if (!probe.ok) {
        const text = dockerMissing(probe.reason, settings.dockerHost);
        const choice = await vscode.window.showErrorMessage(`HUD Studio: ${text.message}`, { detail: text.detail }, USE_LOCAL, ALWAYS_LOCAL, 'Open Settings');
        if (choice === 'Open Settings') void vscode.commands.executeCommand('workbench.action.openSettings', 'hudStudio.dockerHost');
        if (choice === ALWAYS_LOCAL) await vscode.workspace.getConfiguration('hudStudio').update('runtime', 'local', vscode.ConfigurationTarget.Workspace);
        if (choice !== USE_LOCAL && choice !== ALWAYS_LOCAL) return undefined;
        runtime = 'local';
      }
    }
    try {
      const selected = await selectProvider(runtime, { serviceAccess: settings.allowServiceAccess });
      if (selected.notice) {
        this.log.appendLine(`HUD Studio ${selected.notice}`);
        if (!this.autoNoticeShown && selected.provider.kind === 'local') {
          this.autoNoticeShown = true;
          void vscode.window.showInformationMessage(`HUD Studio: ${selected.notice}.`, 'Open Settings').then((a) => {
            if (a) void vscode.commands.executeCommand('workbench.action.openSettings', 'hudStudio.runtime');
          });
        }
      }
      return { provider: selected, runtime: selected.provider.kind === 'url' ? runtime : selected.provider.kind };
    } catch (err) {
      void vscode.window.showErrorMessage(`HUD Studio: ${errorMessage(err)}`);
      return undefined;
    }
  }

  /** Each environment's variables: its env file, then its secrets (secrets win). */
  private async credentials(settings: Settings, root: string): Promise<Record<string, Record<string, string>>> {
    const envs = new Set<string>([...Object.keys(settings.envFiles), ...this.index().environments.map((e) => e.name), ...this.index().templates.map((t) => t.env)]);
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
          throw new HudStudioError('usage', `cannot read the env file of environment "${env}": ${(err as Error).message}`, {
            location: { file: path },
            hint: 'fix the path in hudStudio.envFiles (relative to the workspace folder)',
          });
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
