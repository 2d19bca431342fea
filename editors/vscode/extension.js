// The VS Code side of rulecraft: start `rulecraft lsp` for .rules files (see docs/EDITORS.md).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("rulecraft").get("command");
  client = new LanguageClient(
    "rulecraft",
    "Rulecraft",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "rulecraft", pattern: "**/*.rules" }] },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
