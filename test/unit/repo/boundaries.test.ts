/**
 * The layer boundaries of docs/architecture.md are enforced by the compiler:
 * each probe file is written into a real source folder, compiled with the
 * options of the tsconfig that owns that folder, and removed again.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = join(__dirname, '..', '..', '..');

/** Compiles `source` as `folder/<probe>.ts` under `config` and returns the probe's own diagnostics. */
function compileProbe(config: string, folder: string, source: string): string[] {
  const probe = join(root, folder, `boundaryProbe${process.pid}.ts`);
  writeFileSync(probe, source);
  try {
    const parsed = ts.getParsedCommandLineOfConfigFile(join(root, config), undefined, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
    });
    assert.ok(parsed, `${config} parses`);
    // The probe must be one of the project's own files, or the test would prove nothing about the folder.
    assert.ok(parsed.fileNames.includes(probe), `${config} covers ${folder}`);
    const program = ts.createProgram({ rootNames: [probe], options: parsed.options });
    const file = program.getSourceFile(probe);
    assert.ok(file, 'the probe was compiled');
    return ts
      .getPreEmitDiagnostics(program, file)
      .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  } finally {
    rmSync(probe, { force: true });
  }
}

const usesVscode = "import * as vscode from 'vscode';\nexport const show = vscode.window.showInformationMessage;\n";
const usesDom = 'export const title = (): string => document.title;\n';
const usesNode = 'export const home = (): string | undefined => process.env.HOME;\n';
const plain = 'export const answer: number = 42;\n';

describe('layer boundaries', () => {
  test('the language server cannot import vscode', () => {
    const errors = compileProbe('tsconfig.node.json', 'server/src', usesVscode);
    assert.ok(
      errors.some((e) => e.startsWith('TS2306')),
      errors.join('\n'),
    );
  });

  test('the engine cannot import vscode', () => {
    const errors = compileProbe('tsconfig.node.json', 'client/src/engine', usesVscode);
    assert.ok(
      errors.some((e) => e.startsWith('TS2306')),
      errors.join('\n'),
    );
  });

  test('the CLI cannot import vscode', () => {
    const errors = compileProbe('tsconfig.node.json', 'client/src/cli', usesVscode);
    assert.ok(
      errors.some((e) => e.startsWith('TS2306')),
      errors.join('\n'),
    );
  });

  test('engine code cannot use the DOM', () => {
    const errors = compileProbe('tsconfig.node.json', 'client/src/engine', usesDom);
    assert.ok(
      errors.some((e) => e.includes("Cannot find name 'document'")),
      errors.join('\n'),
    );
  });

  test('extension UI code cannot use the DOM either (the extension host is Node)', () => {
    const errors = compileProbe('tsconfig.ui.json', 'client/src/ui', usesDom);
    assert.ok(
      errors.some((e) => e.includes("Cannot find name 'document'")),
      errors.join('\n'),
    );
  });

  test('the webview cannot use Node or import vscode', () => {
    const node = compileProbe('tsconfig.webview.json', 'media/src/explorer', usesNode);
    assert.ok(
      node.some((e) => e.includes("Cannot find name 'process'")),
      node.join('\n'),
    );
    const vscode = compileProbe('tsconfig.webview.json', 'media/src/explorer', usesVscode);
    assert.ok(
      vscode.some((e) => e.startsWith('TS2306')),
      vscode.join('\n'),
    );
  });

  test('the shared modules cannot import vscode or use the DOM', () => {
    const vscode = compileProbe('tsconfig.node.json', 'common', usesVscode);
    assert.ok(
      vscode.some((e) => e.startsWith('TS2306')),
      vscode.join('\n'),
    );
    const dom = compileProbe('tsconfig.node.json', 'common/trace', usesDom);
    assert.ok(
      dom.some((e) => e.includes("Cannot find name 'document'")),
      dom.join('\n'),
    );
  });

  test('nothing in common/ imports from the programs that share it', () => {
    const common = join(root, 'common');
    const files = readdirSync(common, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length >= 6, `common/ holds the shared modules (found ${files.length})`);
    const outside: string[] = [];
    for (const file of files) {
      const path = join(common, file);
      for (const m of readFileSync(path, 'utf8').matchAll(/from '(\.{1,2}\/[^']*)'/g)) {
        const target = relative(common, resolve(dirname(path), m[1] ?? ''));
        if (target.startsWith('..')) outside.push(`common/${file} imports ${m[1]}`);
      }
    }
    assert.deepEqual(outside, []);
  });

  test('what each layer may use compiles cleanly (the probes fail for the boundary, not by accident)', () => {
    assert.deepEqual(compileProbe('tsconfig.node.json', 'client/src/engine', plain), []);
    assert.deepEqual(compileProbe('tsconfig.node.json', 'server/src', usesNode), []);
    assert.deepEqual(compileProbe('tsconfig.node.json', 'common', plain), []);
    assert.deepEqual(compileProbe('tsconfig.ui.json', 'client/src/ui', usesVscode), []);
    assert.deepEqual(compileProbe('tsconfig.webview.json', 'media/src/explorer', usesDom), []);
  });
});
