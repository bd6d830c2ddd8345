// A handler of pinbench's TypeScript parser server (`syntax.py`): the first syntactic
// diagnostic of a TypeScript program ("line:col message"), or null when it parses. Parsing
// only: no types, no module resolution, nothing of the program run. Node 12-compatible.
'use strict';
module.exports = function (ts) {
  return function (source) {
    // a diagnostic at the end of a file without a final newline trips an assertion
    var out = ts.transpileModule(source + '\n', {
      fileName: 'program.ts', reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 }
    });
    var first = (out.diagnostics || [])[0];
    if (!first) return null;
    var where = first.file && first.start !== undefined
      ? first.file.getLineAndCharacterOfPosition(first.start) : null;
    var at = where ? (where.line + 1) + ':' + (where.character + 1) + ' ' : '';
    return at + ts.flattenDiagnosticMessageText(first.messageText, ' ');
  };
};
