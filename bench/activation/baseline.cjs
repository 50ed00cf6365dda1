// The baseline extension: the least an extension does (one output channel, one command).
'use strict';
const vscode = require('vscode');
exports.activate = async (context) => {
  context.subscriptions.push(vscode.window.createOutputChannel('baseline'));
  context.subscriptions.push(vscode.commands.registerCommand('baseline.hello', () => undefined));
};
