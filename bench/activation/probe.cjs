// One fresh process: require an extension module with a stand-in `vscode`
// module, call activate() with a stand-in context, print what each took.
// usage: node probe.cjs MODULE [--require-only]   (prints {"requireMs":..,"activateMs":..})
'use strict';
const Module = require('node:module');
const { performance } = require('node:perf_hooks');

// Every property is a callable, constructible stand-in, except `then`, so
// that nothing mistakes it for a promise. VS Code's API calls return stand-ins too.
function standIn() {
  const target = function () {};
  return new Proxy(target, {
    get: (_t, key) => (key === 'then' ? undefined : key === Symbol.toPrimitive ? () => '' : standIn()),
    apply: () => standIn(),
    construct: () => standIn(),
    set: () => true,
    defineProperty: () => true,
  });
}
// The names this extension uses are own properties (a bundle copies them into
// its namespace object); any other name still answers with a stand-in.
const NAMES = `CancellationTokenSource CodeLens ConfigurationTarget DecorationRangeBehavior Disposable EventEmitter
  Location MarkdownString Position ProgressLocation Range RelativePattern StatusBarAlignment TestMessage
  TestRunProfileKind TestRunRequest ThemeColor ThemeIcon TreeItem TreeItemCollapsibleState Uri ViewColumn
  commands languages tests window workspace env extensions l10n`.split(/\s+/);
const api = Object.fromEntries(NAMES.map((n) => [n, standIn()]));
// What activate() reads back: settings at their defaults, prompts nobody answers, no folders.
const configuration = {
  get: (_key, fallback) => fallback,
  has: () => false,
  inspect: () => undefined,
  update: async () => undefined,
};
const unanswered = () => Promise.resolve(undefined);
api.workspace = new Proxy(
  { getConfiguration: () => configuration, workspaceFolders: undefined, isTrusted: true },
  { get: (t, key) => (key in t ? t[key] : standIn()) },
);
api.window = new Proxy(
  { showWarningMessage: unanswered, showErrorMessage: unanswered, showInformationMessage: unanswered },
  { get: (t, key) => (key in t ? t[key] : standIn()) },
);
api.commands = new Proxy({ executeCommand: unanswered }, { get: (t, key) => (key in t ? t[key] : standIn()) });
const vscode = new Proxy(api, {
  get: (t, key) => (key in t ? t[key] : key === 'then' ? undefined : standIn()),
});
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };

const context = {
  subscriptions: [],
  extensionUri: standIn(),
  extensionPath: __dirname,
  secrets: standIn(),
  globalState: standIn(),
  workspaceState: standIn(),
  asAbsolutePath: (p) => p,
};

async function main() {
  const file = require('node:path').resolve(process.argv[2]);
  const t0 = performance.now();
  const ext = require(file);
  const t1 = performance.now();
  if (!process.argv.includes('--require-only')) await ext.activate(context);
  const t2 = performance.now();
  process.stdout.write(`${JSON.stringify({ requireMs: t1 - t0, activateMs: t2 - t1 })}\n`);
  // The language client and timers activate() started would keep this process alive.
  process.exit(0);
}
main().catch((err) => {
  process.stderr.write(`${err.stack ?? err}\n`);
  process.exit(1);
});
