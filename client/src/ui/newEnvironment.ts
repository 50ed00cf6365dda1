/**
 * "HUD Studio: New Environment…": asks where, what it is called and which
 * parts, writes the files of ../scaffold.ts and opens the actor's env.py.
 * Nothing is overwritten: an existing folder of that name is refused.
 */
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import { invalidName, scaffoldFiles, type ScaffoldPart } from '../scaffold';

const PARTS: (vscode.QuickPickItem & { part: ScaffoldPart })[] = [
  {
    part: 'hud',
    label: 'HUD environment',
    description: 'actor env.py + a judge environment with its answer key',
    picked: true,
  },
  { part: 'taskFile', label: 'Task file', description: 'tasks.jsonl with one row', picked: true },
  {
    part: 'harbor',
    label: 'Harbor task',
    description: 'task.toml, instruction, Dockerfile, oracle solution, tests/test.sh',
    picked: false,
  },
];

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

async function chooseParent(target: vscode.Uri | undefined): Promise<vscode.Uri | undefined> {
  if (target?.scheme === 'file') {
    return (await vscode.workspace.fs.stat(target)).type & vscode.FileType.Directory
      ? target
      : vscode.Uri.file(dirname(target.fsPath));
  }
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length === 1) return folders[0]!.uri;
  if (folders.length > 1)
    return (await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Where should the new environment go?' }))?.uri;
  const picked = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    openLabel: 'Create Here',
  });
  return picked?.[0];
}

export async function newEnvironment(target?: vscode.Uri): Promise<vscode.Uri | undefined> {
  const parent = await chooseParent(target);
  if (!parent) return undefined;
  const name = await vscode.window.showInputBox({
    title: 'New HUD Environment',
    prompt: `A folder of this name is created in ${vscode.workspace.asRelativePath(parent, true)}`,
    value: 'my-env',
    validateInput: async (value) =>
      invalidName(value) ?? ((await exists(join(parent.fsPath, value))) ? `${value} already exists there` : undefined),
  });
  if (!name) return undefined;
  const chosen = await vscode.window.showQuickPick(PARTS, {
    title: `New HUD Environment: ${name}`,
    canPickMany: true,
    placeHolder: 'What should it contain?',
  });
  if (!chosen?.length) return undefined;
  const files = scaffoldFiles(
    name,
    chosen.map((c) => c.part),
  );
  for (const f of files) {
    const path = join(parent.fsPath, ...f.path.split('/'));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, f.content, { flag: 'wx' });
    if (f.executable) await chmod(path, 0o755);
  }
  const first =
    files.find((f) => f.path.endsWith('/env.py')) ?? files.find((f) => f.path.endsWith('/task.toml')) ?? files[0]!;
  const uri = vscode.Uri.file(join(parent.fsPath, ...first.path.split('/')));
  await vscode.window.showTextDocument(uri);
  return uri;
}
