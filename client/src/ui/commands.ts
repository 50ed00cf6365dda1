/**
 * The extension's commands. Arguments arrive in several shapes (a CodeLens's
 * `{ref, uri}`, a tree node, nothing from the palette); each handler turns
 * them into run targets and leaves the rest to the runner.
 */
import * as vscode from 'vscode';
import { Commands, type IndexedTask, type WorkspaceIndex } from '../../../common/lspMessages';
import type { EnvNode } from '../environmentsModel';
import { errorMessage } from '../engine/errors';
import { mean } from '../engine/jobStats';
import { type RolloutOutcome, inlineText, score } from '../outcome';
import type { RunsModel, RunsNode } from '../runsModel';
import { AGENT_KINDS, type AgentKind } from '../settings';
import { rolloutFrom, rolloutIdFrom, rolloutOf } from './pickRollout';
import { findTask } from '../taskLookup';
import { pickTemplate } from './pickTemplate';
import type { RunRequest, RunResult, RunTarget } from './runner';

export interface CommandDeps {
  index: () => WorkspaceIndex;
  /** Where an Environments view node is defined. */
  locate: (node: EnvNode) => { uri: string; line: number } | undefined;
  runs: RunsModel;
  run: (req: RunRequest) => Promise<RunResult>;
  cancelAll: () => void;
  refresh: () => Promise<void>;
  openTrace: (rolloutId: string) => void;
  /** Two trace files in the explorer's compare view, `left` the earlier run. */
  compareTraces: (left: string, right: string, title: string) => void;
  openTraceFile: (uri: vscode.Uri) => Promise<void>;
  setSecret: () => Promise<void>;
  deleteSecret: () => Promise<void>;
  rolloutLog: vscode.OutputChannel;
  log: vscode.LogOutputChannel;
  /** Called after each rollout an editor command started (decorations, trace lens, Testing stays separate). */
  onFinished: (
    target: RunTarget,
    outcome: RolloutOutcome,
    actorGrade: Parameters<NonNullable<RunRequest['onFinished']>>[2],
    rolloutId: string,
  ) => void;
}

type TaskArg = Commands.RunTaskArgs | EnvNode | RunsNode | { rolloutId: string } | string | vscode.Uri | undefined;

function targetOf(t: IndexedTask): RunTarget {
  return { ref: t.ref, uri: t.uri, label: t.label };
}

export type RegisterCommand = (id: string, fn: (...args: never[]) => unknown) => void;

/** Registers commands so that a failing one says why in a message instead of VS Code's generic "command failed". */
export function commandRegistrar(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RegisterCommand {
  return (id, fn) =>
    void context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: never[]) => {
        try {
          return await fn(...args);
        } catch (err) {
          log.error(`${id}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          void vscode.window.showErrorMessage(`HUD Studio: ${errorMessage(err)}`);
          return undefined;
        }
      }),
    );
}

export function registerCommands(context: vscode.ExtensionContext, d: CommandDeps): void {
  const reg = commandRegistrar(context, d.log);

  const pickTask = async (pool: IndexedTask[], title: string): Promise<IndexedTask | undefined> =>
    (
      await vscode.window.showQuickPick(
        pool.map((t) => ({ label: t.label, description: t.ref, t })),
        // A step of a multi-step flow: a webview taking focus must not silently drop it.
        { title, ignoreFocusOut: true },
      )
    )?.t;

  /** Finds the task an argument means; from the palette, the task under the cursor (or a pick). */
  const resolveTask = async (arg: TaskArg, title = 'Run which task?'): Promise<RunTarget | undefined> => {
    const tasks = d.index().tasks;
    if (typeof arg === 'string') {
      const t = tasks.find((x) => x.ref === arg);
      return t && targetOf(t);
    }
    if (arg && !(arg instanceof vscode.Uri) && typeof arg === 'object') {
      if ('ref' in arg && typeof arg.ref === 'string') {
        const t = findTask(tasks, arg.ref, 'uri' in arg && typeof arg.uri === 'string' ? arg.uri : undefined);
        if (t) return targetOf(t);
        if ('uri' in arg && typeof arg.uri === 'string')
          return { ref: arg.ref, uri: arg.uri, label: arg.ref.split('::').at(-1) ?? arg.ref };
      }
      if ('rolloutId' in arg) {
        const r = d.runs.rollout(arg.rolloutId);
        const t = r && tasks.find((x) => x.ref === r.trace.task.ref);
        return t && targetOf(t);
      }
    }
    const editor = vscode.window.activeTextEditor;
    const uri = arg instanceof vscode.Uri ? arg : editor?.document.uri;
    const here = tasks.filter((t) => uri && vscode.Uri.parse(t.uri).toString() === uri.toString());
    const line = editor?.selection.active.line;
    const under =
      line === undefined ? undefined : here.find((t) => t.range.start.line <= line && line <= t.range.end.line);
    if (under) return targetOf(under);
    const pool = here.length ? here : tasks;
    if (!pool.length) {
      void vscode.window.showInformationMessage('HUD Studio: no tasks found in this workspace.');
      return undefined;
    }
    const picked = await pickTask(pool, title);
    return picked && targetOf(picked);
  };

  const runTargets = async (targets: RunTarget[], label: string, agent?: AgentKind, answer?: string): Promise<void> => {
    if (!targets.length) {
      void vscode.window.showInformationMessage('HUD Studio: no tasks to run here.');
      return;
    }
    const results: { target: RunTarget; outcome: RolloutOutcome; rolloutId: string }[] = [];
    await d.run({
      targets,
      label,
      ...(agent ? { agent } : {}),
      ...(answer !== undefined ? { answer } : {}),
      interactive: true,
      onFinished: (target, outcome, actorGrade, rolloutId) => {
        results.push({ target, outcome, rolloutId });
        d.onFinished(target, outcome, actorGrade, rolloutId);
      },
    });
    void announce(results, label);
  };

  const announce = async (
    results: { target: RunTarget; outcome: RolloutOutcome; rolloutId: string }[],
    label: string,
  ): Promise<void> => {
    if (!results.length) return;
    if (results.length === 1) {
      const { target, outcome, rolloutId } = results[0]!;
      const text = `HUD Studio: ${target.label}: ${inlineText(outcome)}`;
      const bad = outcome.status === 'error';
      const show = bad ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
      const a = await show(text, 'Open Trace', 'Show Log');
      if (a === 'Open Trace') d.openTrace(rolloutId);
      if (a === 'Show Log') d.rolloutLog.show(true);
      return;
    }
    const rewards = results.map((r) => r.outcome.reward).filter((x): x is number => x !== null);
    const errored = results.filter((r) => r.outcome.status === 'error').length;
    const meanReward = mean(rewards);
    const shown = meanReward === null ? '-' : score(meanReward);
    const a = await vscode.window.showInformationMessage(
      `HUD Studio: ${label}: ${results.length} rollouts, mean reward ${shown}${errored ? `, ${errored} errored` : ''}`,
      'Show Runs',
    );
    if (a) void vscode.commands.executeCommand('hudStudio.runs.focus');
  };

  const pickAgent = async (): Promise<AgentKind | undefined> => {
    const pick = await vscode.window.showQuickPick(
      AGENT_KINDS.map((k) => ({ label: k, description: AGENT_HELP[k] })),
      { title: 'Run with which agent?', ignoreFocusOut: true },
    );
    return pick?.label;
  };

  reg(Commands.runTask, async (arg?: TaskArg) => {
    const t = await resolveTask(arg);
    if (t) await runTargets([t], `Run ${t.label}`);
  });
  reg('hudStudio.runTaskWithAgent', async (arg?: TaskArg) => {
    const t = await resolveTask(arg);
    if (!t) return;
    const agent = await pickAgent();
    if (agent) await runTargets([t], `Run ${t.label} (${agent})`, agent);
  });
  reg(Commands.runTemplate, async (arg?: Commands.RunTemplateArgs | EnvNode) => {
    arg ??= await pickTemplate(d.index(), 'Run the tasks of which template?').then(
      (t) => t && { uri: t.uri, env: t.env, templateId: t.id },
    );
    if (!arg) return;
    const env = 'env' in arg ? arg.env : undefined;
    const templateId = 'templateId' in arg ? arg.templateId : undefined;
    const targets = d
      .index()
      .tasks.filter((t) => t.env === env && t.templateId === templateId)
      .map(targetOf);
    if (!targets.length) {
      const usedBy = d.index().tasks.filter((t) => t.verifier?.env === env && t.verifier?.templateId === templateId);
      const why = usedBy.length
        ? `it is the verifier of ${usedBy.map((t) => t.label).join(', ')}; run those tasks instead`
        : `write a module-level task such as \`task = ${templateId}(...)\` to run it`;
      void vscode.window.showInformationMessage(`HUD Studio: template ${env}/${templateId} has no tasks: ${why}.`);
      return;
    }
    await runTargets(targets, `Run ${env}/${templateId}`);
  });
  reg('hudStudio.runFile', async (arg?: vscode.Uri) => {
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri) return;
    const targets = d
      .index()
      .tasks.filter((t) => vscode.Uri.parse(t.uri).toString() === uri.toString())
      .map(targetOf);
    await runTargets(targets, `Run ${vscode.workspace.asRelativePath(uri)}`);
  });
  reg('hudStudio.runAll', async () => {
    await runTargets(d.index().tasks.map(targetOf), 'Run all tasks');
  });
  reg('hudStudio.cancelAll', () => d.cancelAll());
  reg('hudStudio.refresh', () => d.refresh());
  reg('hudStudio.openTask', async (arg?: EnvNode | string) => {
    const idx = d.index();
    let loc: { uri: string; line: number } | undefined;
    if (typeof arg === 'string') {
      const t = idx.tasks.find((x) => x.ref === arg);
      loc = t && { uri: t.uri, line: t.range.start.line };
    } else if (arg) {
      loc = d.locate(arg);
    } else {
      // No row (a tree that was redrawing as the menu's command landed): ask which task.
      const t = await pickTask(idx.tasks, 'Go to which task?');
      loc = t && { uri: t.uri, line: t.range.start.line };
    }
    if (!loc) return;
    const pos = new vscode.Position(loc.line, 0);
    await vscode.window.showTextDocument(vscode.Uri.parse(loc.uri), {
      selection: new vscode.Range(pos, pos),
      preview: true,
    });
  });
  reg('hudStudio.openTrace', async (arg?: RunsNode | { rolloutId: string }) => {
    const id = await rolloutIdFrom(d.runs, arg, 'Open which run in the trace explorer?', false);
    if (id) d.openTrace(id);
  });
  reg('hudStudio.openTraceFile', async (arg?: vscode.Uri) => {
    const uri =
      arg instanceof vscode.Uri
        ? arg
        : (
            await vscode.window.showOpenDialog({
              canSelectMany: false,
              filters: { 'HUD traces': ['hudtrace.json', 'json'] },
              title: 'Open a HUD Studio trace',
            })
          )?.[0];
    if (uri) await d.openTraceFile(uri);
  });
  reg('hudStudio.clearRuns', () => d.runs.clearFinished());

  // ---- a rollout's context menu in the Runs view
  reg('hudStudio.compareWithPrevious', async (arg?: RunsNode) => {
    const r = await rolloutFrom(d.runs, arg, 'Compare which run with the one before it?', true);
    if (!r?.tracePath) return;
    const prev = d.runs.previousOf(r.id);
    if (!prev?.tracePath) {
      void vscode.window.showInformationMessage(
        `HUD Studio: no earlier run of ${r.trace.task.ref} with a trace to compare with.`,
      );
      return;
    }
    d.compareTraces(prev.tracePath, r.tracePath, r.trace.task.ref);
  });
  reg('hudStudio.rerunSameAnswer', async (arg?: RunsNode) => {
    const r = await rolloutFrom(d.runs, arg, 'Re-run which run with the same answer?', false);
    if (!r) return;
    const t = d.index().tasks.find((x) => x.ref === r.trace.task.ref);
    if (!t) {
      void vscode.window.showWarningMessage(`HUD Studio: ${r.trace.task.ref} is no longer in the workspace.`);
      return;
    }
    const answer = r.trace.answer;
    if (typeof answer === 'string') {
      await runTargets([targetOf(t)], `Re-run ${t.label} with the same answer`, undefined, answer);
      return;
    }
    // No text answer to send again (a Harbor agent, or a run that never answered): the same agent instead.
    const kind = AGENT_KINDS.find((k) => k === r.trace.agent.kind);
    await runTargets([targetOf(t)], `Re-run ${t.label}`, kind);
  });
  reg('hudStudio.copyTaskRef', async (arg?: RunsNode | EnvNode) => {
    const ref =
      rolloutOf(d.runs, arg as RunsNode)?.trace.task.ref ??
      (arg && 'ref' in arg && typeof arg.ref === 'string' ? arg.ref : undefined) ??
      // No row came with it (the palette, or a tree that was redrawing): the task under the cursor, or a pick.
      (await resolveTask(undefined, 'Copy the reference of which task?'))?.ref;
    if (!ref) return;
    await vscode.env.clipboard.writeText(ref);
    void vscode.window.setStatusBarMessage(`Copied ${ref}`, 3000);
  });
  reg('hudStudio.revealTrace', async (arg?: RunsNode) => {
    const path = (await rolloutFrom(d.runs, arg, 'Reveal the trace file of which run?', true))?.tracePath;
    if (!path) return;
    const uri = vscode.Uri.file(path);
    // Inside the workspace the Explorer shows it; elsewhere the OS's file manager (a remote has none: open it).
    if (vscode.workspace.getWorkspaceFolder(uri)) await vscode.commands.executeCommand('revealInExplorer', uri);
    else await vscode.commands.executeCommand('revealFileInOS', uri).then(undefined, () => d.openTraceFile(uri));
  });
  reg('hudStudio.setEnvironmentSecret', () => d.setSecret());
  reg('hudStudio.deleteEnvironmentSecret', () => d.deleteSecret());
  reg('hudStudio.showRolloutLog', () => d.rolloutLog.show(true));
  reg('hudStudio.selectAgent', async () => {
    const agent = await pickAgent();
    if (!agent) return;
    const cfg = vscode.workspace.getConfiguration('hudStudio');
    await cfg.update('agent', agent, vscode.ConfigurationTarget.Workspace);
    if (agent === 'fixed' && !cfg.get<string>('agentAnswer')) {
      const answer = await vscode.window.showInputBox({
        title: 'The fixed answer',
        prompt: 'hudStudio.agentAnswer',
        ignoreFocusOut: true,
      });
      if (answer !== undefined) await cfg.update('agentAnswer', answer, vscode.ConfigurationTarget.Workspace);
    }
    if (agent === 'command' && !cfg.get<string>('agentCommand')) {
      const command = await vscode.window.showInputBox({
        title: 'The agent command',
        prompt: 'Gets the prompt on stdin; its stdout is the answer',
        ignoreFocusOut: true,
      });
      if (command !== undefined) await cfg.update('agentCommand', command, vscode.ConfigurationTarget.Workspace);
    }
  });
}

const AGENT_HELP: Record<AgentKind, string> = {
  ask: 'show the prompt, type the answer',
  fixed: 'answer with hudStudio.agentAnswer',
  command: 'run hudStudio.agentCommand with the prompt on stdin',
  nop: 'answer nothing',
};
