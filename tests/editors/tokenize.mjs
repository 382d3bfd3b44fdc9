// Tokenizes files with the Neve TextMate grammar through vscode-textmate and vscode-oniguruma, the
// engine VS Code runs. Reads {"grammar": path, "files": [path, ...]} on stdin; writes
// {path: [[[start, end, [scope, ...]], ...] per line]} on stdout (start, end: UTF-16 offsets).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import vsctm from "vscode-textmate";
import oniguruma from "vscode-oniguruma";

const require = createRequire(import.meta.url);
const request = JSON.parse(readFileSync(0, "utf8"));
const wasm = readFileSync(require.resolve("vscode-oniguruma/release/onig.wasm"));
await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));

const registry = new vsctm.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (s) => new oniguruma.OnigString(s),
  }),
  loadGrammar: async () => vsctm.parseRawGrammar(readFileSync(request.grammar, "utf8"), request.grammar),
});
const grammar = await registry.loadGrammar("source.neve");

const result = {};
for (const path of request.files) {
  let stack = vsctm.INITIAL;
  const lines = [];
  for (const line of readFileSync(path, "utf8").replace(/^\uFEFF/, "").split(/\r?\n/)) {
    const r = grammar.tokenizeLine(line, stack);
    lines.push(r.tokens.map((t) => [t.startIndex, t.endIndex, t.scopes]));
    stack = r.ruleStack;
  }
  result[path] = lines;
}
process.stdout.write(JSON.stringify(result));
