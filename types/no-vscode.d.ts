// Deliberately not a module. tsconfig.node.json and tsconfig.webview.json map
// `vscode` here, so any import of it from Node or webview code fails with
// "is not a module": only client/src/ui/ and client/src/extension.ts run in
// the extension host (docs/architecture.md).
