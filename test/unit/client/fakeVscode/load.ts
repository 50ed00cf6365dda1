/**
 * Loads client modules the way the extension host does (CommonJS), with
 * `require('vscode')` answered by the recording fake beside this file.
 */
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';

const FAKE_VSCODE = join(__dirname, 'vscode.ts');
type Resolve = (request: string, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve };
const resolveFilename = loader._resolveFilename;
loader._resolveFilename = function (this: unknown, request: string, ...rest: unknown[]) {
  return request === 'vscode' ? FAKE_VSCODE : resolveFilename.call(this, request, ...rest);
};

/** `require(path)` from the test file `from` (its `__filename`), with the fake as `vscode`. */
export function loadWithFakeVscode<T>(from: string, path: string): T {
  return createRequire(from)(path) as T;
}
