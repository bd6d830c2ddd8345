'use strict';
// pinbench's TypeScript step, in the sandbox, on the harness's Node: type-check the program
// with the environment's `typescript` (strict), then transpile it to CommonJS.
//
//   harness-node _pinbench_tscheck.js PROGRAM.ts OUT.js
//
// Prints one JSON line: {"ok": true} or {"ok": false, "syntax": bool, "diagnostics": [...]}.
const fs = require('fs');
const path = require('path');

const [file, out] = process.argv.slice(2);
let ts;
try {
  ts = require(require.resolve('typescript', { paths: [path.dirname(file)] }));
} catch (err) {
  console.log(JSON.stringify({ ok: false, missing: 'typescript is not in the environment' }));
  process.exit(0);
}
const options = {
  strict: true,
  noEmit: true,
  esModuleInterop: true,
  allowSyntheticDefaultImports: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ES2019,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.NodeJs || ts.ModuleResolutionKind.Node10,
  resolveJsonModule: true,
};
const program = ts.createProgram([file], options);
const diagnostics = ts.getPreEmitDiagnostics(program).filter(
  (d) => d.category === ts.DiagnosticCategory.Error
);
if (diagnostics.length) {
  const text = diagnostics.slice(0, 20).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file) return `TS${d.code}: ${message}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start || 0);
    return `${path.basename(d.file.fileName)}:${line + 1}:${character + 1} TS${d.code}: ${message}`;
  });
  // TS1xxx are the parser's: the program is not TypeScript at all
  const syntax = diagnostics.some((d) => d.code >= 1000 && d.code < 2000 && d.file);
  console.log(JSON.stringify({ ok: false, syntax, diagnostics: text }));
  process.exit(0);
}
const source = fs.readFileSync(file, 'utf8');
const js = ts.transpileModule(source, {
  compilerOptions: { ...options, noEmit: false },
  fileName: file,
}).outputText;
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, js);
console.log(JSON.stringify({ ok: true }));
