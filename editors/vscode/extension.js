// Starts the Neve language server (`nsm lsp` by default) over stdio for .nv files.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("neve").get("server.command");
  client = new LanguageClient(
    "neve",
    "Neve language server",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "neve" }] },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
