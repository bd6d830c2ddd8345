'use strict';
// pinbench's TypeScript step, in the sandbox, on the harness's Node: type-check the program
// with the environment's `typescript` (strict), then transpile it to CommonJS.
//
//   harness-node _pinbench_tscheck.js PROGRAM.ts OUT.js [NODE_VERSION]
//
// Prints one JSON line: {"ok": true} or {"ok": false, "syntax": bool, "diagnostics": [...]}.
//
// The program is checked against the ECMAScript library of the Node it runs on (NODE_VERSION:
// es2019 for Node 12 up to esnext for Node 22) and Node's own types (@types/node, when the
// environment has it), not the DOM's: a Node program has no `window` or `document`. (tsc's
// default library for the target would add the DOM, and parsing it and every @types package
// is most of a check's time.)
const fs = require('fs');
const path = require('path');

const [file, out, nodeVersion] = process.argv.slice(2);
let ts;
let tsDir;
try {
  const main = require.resolve('typescript', { paths: [path.dirname(file)] });
  ts = require(main);
  tsDir = path.dirname(main);
} catch (err) {
  console.log(JSON.stringify({ ok: false, missing: 'typescript is not in the environment' }));
  process.exit(0);
}
const major = parseInt(String(nodeVersion || '').split('.')[0], 10) || 0;
const LIBRARIES = [
  [22, 'esnext'], [20, 'es2023'], [18, 'es2022'], [16, 'es2021'], [14, 'es2020'], [0, 'es2019'],
];
// the newest library this Node implements that the environment's TypeScript ships
const library = LIBRARIES.filter((entry) => major >= entry[0])
  .map((entry) => 'lib.' + entry[1] + '.d.ts')
  .find((name) => fs.existsSync(path.join(tsDir, name)));
let nodeTypes = false;
try {
  require.resolve('@types/node/package.json', { paths: [path.dirname(file)] });
  nodeTypes = true;
} catch (err) {
  nodeTypes = false;
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
  lib: library ? [library] : undefined,
  types: nodeTypes ? ['node'] : [],
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
