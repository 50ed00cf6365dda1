/**
 * Asked once before a run whose agent cannot answer (the fixed agent with
 * an empty hudStudio.agentAnswer): every HUD task would be graded on an empty
 * answer and score 0 with no hint why. Harbor tasks in the same run keep
 * their own agent (hudStudio.harborAgent, the oracle by default).
 */
import * as vscode from 'vscode';
import type { Settings } from '../settings';

export type AnswerSource = { kind: 'fixed'; answer: string } | { kind: 'ask' } | { kind: 'command' } | { kind: 'nop' };

type Item = vscode.QuickPickItem & { pick: 'type' | 'ask' | 'command' | 'nop' | 'empty' };

export async function chooseAnswerSource(
  hudTasks: number,
  settings: Settings,
  harborTasks: number,
): Promise<AnswerSource | undefined> {
  const items: Item[] = [
    { pick: 'type', label: '$(edit) Type one answer for every task…' },
    {
      pick: 'ask',
      label: '$(person) Answer each task yourself',
      description: 'one prompt per task, one task at a time',
    },
  ];
  if (settings.agentCommand)
    items.push({ pick: 'command', label: '$(terminal) Use the command agent', description: settings.agentCommand });
  items.push(
    { pick: 'nop', label: '$(circle-slash) Use the nop agent', description: 'checks that doing nothing scores 0' },
    { pick: 'empty', label: '$(warning) Run with an empty answer anyway' },
  );
  const harborNote = harborTasks
    ? ` (${harborTasks} Harbor task${harborTasks === 1 ? '' : 's'} run with the ${settings.harborAgent} agent)`
    : '';
  const picked = await vscode.window.showQuickPick(items, {
    title: `HUD Studio: how should ${hudTasks === 1 ? 'this task' : `these ${hudTasks} tasks`} be answered?`,
    placeHolder: `The fixed agent has no answer (hudStudio.agentAnswer is empty), so every task would score as if nobody answered${harborNote}.`,
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  switch (picked.pick) {
    case 'type': {
      const answer = await vscode.window.showInputBox({
        title: 'HUD Studio: the answer for every task',
        prompt: 'Sent as the answer of each task in this run',
        ignoreFocusOut: true,
      });
      return answer === undefined ? undefined : { kind: 'fixed', answer };
    }
    case 'empty':
      return { kind: 'fixed', answer: '' };
    default:
      return { kind: picked.pick };
  }
}
