/**
 * The rollout a Runs view command acts on. From a row's context menu it is
 * that row's; from the Command Palette none comes, and VS Code passes none
 * either when the command lands while the Runs tree redraws (its extension
 * host forgets a tree's rows until the workbench has fetched them again).
 * Then the user picks one: asking beats doing nothing.
 */
import * as vscode from 'vscode';
import type { RolloutRecord, RunsModel, RunsNode } from '../runsModel';

export type RolloutArg = RunsNode | { rolloutId: string } | undefined;

/** The rollout a row argument names, without asking. */
export function rolloutOf(runs: RunsModel, arg: RolloutArg): RolloutRecord | undefined {
  return arg && 'rolloutId' in arg ? runs.rollout(arg.rolloutId) : undefined;
}

/**
 * The argument's rollout, else one the user picks among the finished ones
 * (with a trace file if `withTrace`). A rollout the Runs view no longer
 * holds (cleared, or beyond its history) is said so, not replaced by a pick.
 */
export async function rolloutFrom(
  runs: RunsModel,
  arg: RolloutArg,
  title: string,
  withTrace: boolean,
): Promise<RolloutRecord | undefined> {
  if (arg && 'rolloutId' in arg) {
    const known = runs.rollout(arg.rolloutId);
    if (!known) void vscode.window.showInformationMessage('HUD Studio: that run is no longer in the Runs view.');
    return known;
  }
  return pickRollout(runs, title, withTrace);
}

/**
 * The argument's rollout id, else a picked rollout's. For commands that read
 * stored traces by id (the explorer, the template diff), which also exist for
 * rollouts the Runs view has dropped.
 */
export async function rolloutIdFrom(
  runs: RunsModel,
  arg: RolloutArg,
  title: string,
  withTrace: boolean,
): Promise<string | undefined> {
  return arg && 'rolloutId' in arg ? arg.rolloutId : (await pickRollout(runs, title, withTrace))?.id;
}

/** A rollout the user picks among the finished ones (with a trace file if `withTrace`), newest first. */
export async function pickRollout(
  runs: RunsModel,
  title: string,
  withTrace: boolean,
): Promise<RolloutRecord | undefined> {
  const rows = runs.finished(withTrace);
  if (rows.length === 0) {
    void vscode.window.showInformationMessage(
      `HUD Studio: no finished run${withTrace ? ' with a trace file' : ''} in the Runs view yet.`,
    );
    return undefined;
  }
  const items = rows.map((r) => {
    const view = runs.view({ kind: 'rollout', rolloutId: r.id });
    return { label: view.label, description: view.description ?? '', detail: r.trace.task.ref, rollout: r };
  });
  return (await vscode.window.showQuickPick(items, { title, matchOnDescription: true, matchOnDetail: true }))?.rollout;
}
