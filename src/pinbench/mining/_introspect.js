// Runs INSIDE the sandbox, on the environment's own Node (12 and later: no syntax newer than
// ES2019), as the program of an in-process Jest-style run. pinbench prepends lines binding
// LIBRARY (the npm package), MARKER and MAX_DEPTH. It exports `done`, a promise the test
// awaits; when it settles, MARKER and a JSON document {api, failed} are on stdout.
//
// The API: what the package exports (require, else import() for an ES module), walked to
// MAX_DEPTH: functions with their parameter names, classes with their prototype methods,
// objects; then, where the package ships TypeScript declarations, what they export (types
// and interfaces too) with their parameters and `@deprecated` tags.
const fs = require('fs');
const path = require('path');

const api = {};
const failed = {};

function paramsOf(fn) {
  let text;
  try {
    text = Function.prototype.toString.call(fn);
  } catch (err) {
    return null;
  }
  if (/\{\s*\[native code\]\s*\}\s*$/.test(text)) return null;
  let head;
  const arrow = /^(?:async\s*)?(\w+)\s*=>/.exec(text);
  if (arrow) return [[arrow[1], 'POSITIONAL_OR_KEYWORD', null]];
  if (/^class\b/.test(text)) {
    const ctor = /\bconstructor\s*\(([^)]*)\)/.exec(text);
    head = ctor ? ctor[1] : '';
  } else {
    const open = text.indexOf('(');
    if (open < 0) return null;
    let depth = 0;
    let end = open;
    for (; end < text.length; end++) {
      if (text[end] === '(') depth++;
      if (text[end] === ')' && --depth === 0) break;
    }
    head = text.slice(open + 1, end);
  }
  const out = [];
  let depth = 0;
  let current = '';
  for (const ch of head + ',') {
    if ('([{'.indexOf(ch) >= 0) depth++;
    if (')]}'.indexOf(ch) >= 0) depth--;
    if (ch === ',' && depth === 0) {
      const part = current.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '').trim();
      current = '';
      if (!part) continue;
      const eq = part.indexOf('=');
      const name = (eq >= 0 ? part.slice(0, eq) : part).trim();
      const kind = name.startsWith('...') ? 'VAR_POSITIONAL' : 'POSITIONAL_OR_KEYWORD';
      out.push([name.replace(/^\.\.\./, ''), kind, eq >= 0 ? part.slice(eq + 1).trim().slice(0, 80) : null]);
      continue;
    }
    current += ch;
  }
  return out;
}

function isClass(fn) {
  try {
    return /^class\b/.test(Function.prototype.toString.call(fn));
  } catch (err) {
    return false;
  }
}

function deprecatedText(fn) {
  try {
    return /\bdeprecated\b/i.test(Function.prototype.toString.call(fn).slice(0, 400));
  } catch (err) {
    return false;
  }
}

function record(name, value) {
  const type = typeof value;
  if (type === 'function') {
    api[name] = {
      kind: isClass(value) ? 'class' : 'function',
      params: paramsOf(value),
      deprecated: deprecatedText(value),
      doc: '',
    };
  } else if (value !== null && type === 'object') {
    api[name] = { kind: 'module', params: null, deprecated: false, doc: '' };
  } else {
    api[name] = { kind: 'attribute', params: null, deprecated: false, doc: '' };
  }
}

function walk(value, prefix, depth, seen) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  if (seen.has(value) || depth > MAX_DEPTH) return;
  seen.add(value);
  let keys = [];
  try {
    keys = Object.keys(value).filter((k) => !k.startsWith('_'));
  } catch (err) {
    failed[prefix] = String(err);
    return;
  }
  if (typeof value === 'function' && value.prototype && isClass(value)) {
    Object.getOwnPropertyNames(value.prototype)
      .filter((k) => k !== 'constructor' && !k.startsWith('_'))
      .forEach((k) => {
        const d = Object.getOwnPropertyDescriptor(value.prototype, k);
        if (d && typeof d.value === 'function') record(prefix + '.' + k, d.value);
      });
  }
  for (const key of keys.slice(0, 2000)) {
    let child;
    try {
      child = value[key];
    } catch (err) {
      failed[prefix + '.' + key] = String(err);
      continue;
    }
    const name = prefix + '.' + key;
    record(name, child);
    if (typeof child === 'object' || typeof child === 'function') walk(child, name, depth + 1, seen);
  }
}

async function load() {
  try {
    return require(LIBRARY);
  } catch (err) {
    if (['ERR_REQUIRE_ESM', 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'MODULE_NOT_FOUND'].indexOf(err.code) < 0) throw err;
    return import(LIBRARY);
  }
}

function declarations() {
  let manifest;
  let root;
  try {
    const base = require.resolve(LIBRARY).split(path.sep);
    const at = base.lastIndexOf('node_modules');
    const depthOfName = LIBRARY.startsWith('@') ? 3 : 2;
    root = base.slice(0, at + depthOfName).join(path.sep);
    manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  } catch (err) {
    return;
  }
  const entry = manifest.types || manifest.typings || (fs.existsSync(path.join(root, 'index.d.ts')) ? 'index.d.ts' : null);
  if (!entry) return;
  let ts;
  try {
    ts = require('typescript');
  } catch (err) {
    failed['<types>'] = 'typescript is not in the environment';
    return;
  }
  const file = path.resolve(root, entry);
  const program = ts.createProgram([file], { allowJs: false, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const symbol = source && checker.getSymbolAtLocation(source);
  if (!symbol) return;
  for (const exported of checker.getExportsOfModule(symbol)) {
    const name = LIBRARY + '.' + exported.getName();
    const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
    const decl = (target.getDeclarations() || [])[0];
    const tags = target.getJsDocTags ? target.getJsDocTags() : [];
    const deprecated = tags.some((t) => t.name === 'deprecated');
    let kind = 'attribute';
    let params = null;
    if (target.flags & ts.SymbolFlags.Function) {
      kind = 'function';
      if (decl && decl.parameters) {
        params = decl.parameters.map((p) => [
          p.name.getText(),
          p.dotDotDotToken ? 'VAR_POSITIONAL' : 'POSITIONAL_OR_KEYWORD',
          p.initializer ? p.initializer.getText().slice(0, 80) : p.questionToken ? 'optional' : null,
        ]);
      }
    } else if (target.flags & ts.SymbolFlags.Class) kind = 'class';
    else if (target.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) kind = 'type';
    else if (target.flags & (ts.SymbolFlags.Module | ts.SymbolFlags.Namespace)) kind = 'module';
    const known = api[name];
    if (known) {
      known.deprecated = known.deprecated || deprecated;
      if (params && known.kind === kind) known.params = params;
    } else {
      api[name] = { kind: kind, params: params, deprecated: deprecated, doc: '' };
    }
  }
}

const done = (async function () {
  try {
    const exported = await load();
    record(LIBRARY, exported);
    walk(exported, LIBRARY, 1, new Set());
    if (exported && exported.default && exported.default !== exported) walk(exported.default, LIBRARY, 1, new Set());
  } catch (err) {
    failed[LIBRARY] = String(err).slice(0, 500);
  }
  try {
    declarations();
  } catch (err) {
    failed['<types>'] = String(err).slice(0, 500);
  }
  process.stdout.write(MARKER + JSON.stringify({ api: api, failed: failed }) + '\n');
})();

module.exports = { done: done };
