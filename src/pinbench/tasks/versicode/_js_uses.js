// Every use of one npm package (or of Node's standard library) in a JavaScript or TypeScript
// snippet, found with the TypeScript compiler's parser: parsed, never run. Node 12-compatible.
//
// A handler of pinbench's TypeScript parser server (`envs/node/syntax.py`): given the
// TypeScript package, it answers a request [library, snippet] with {"uses": [...]} or
// {"error": "line:col message"}. A use: qualname ('lodash.orderBy',
// 'moment.duration().humanize', 'qs.stringify({allowDots})', '?.map' when the receiver is
// unknown), name (the identifier), kind (import|call|reference|keyword), resolved, token
// [start, end) and block [start, end) (the statement list around the use), as UTF-16 offsets.
// Bindings: require() (plain, destructured, or `.prop`), import default/namespace/named,
// `import x = require()`; a call of the module itself (moment(), dayjs()) is a use.
'use strict';
var ts = null;  // the TypeScript package, given to the handler's factory
var LIBRARY = null;  // the library of the snippet being read
var builtins = require('module').builtinModules;

function moduleRoot(spec) {
  if (LIBRARY === 'node') {
    var bare = spec.indexOf('node:') === 0 ? spec.slice(5) : spec;
    return builtins.indexOf(bare) >= 0 || builtins.indexOf(bare.split('/')[0]) >= 0 ? bare : null;
  }
  return spec === LIBRARY || spec.indexOf(LIBRARY + '/') === 0 ? spec : null;
}

function requireSpec(node) {
  // require('x'), possibly parenthesised or cast
  while (node && (ts.isParenthesizedExpression(node) || ts.isAsExpression(node))) {
    node = node.expression;
  }
  if (node && ts.isCallExpression(node) && ts.isIdentifier(node.expression) &&
      node.expression.text === 'require' && node.arguments.length === 1 &&
      ts.isStringLiteralLike(node.arguments[0])) {
    return node.arguments[0].text;
  }
  return null;
}

function main(source) {
  var file = ts.createSourceFile('snippet.ts', source, ts.ScriptTarget.Latest, true,
    ts.ScriptKind.TS);
  var diagnostics = file.parseDiagnostics || [];
  if (diagnostics.length) {
    var d = diagnostics[0];
    var at = file.getLineAndCharacterOfPosition(d.start);
    return { error: (at.line + 1) + ':' + (at.character + 1) + ' ' +
      ts.flattenDiagnosticMessageText(d.messageText, ' ') };
  }
  var bindings = {};  // local name -> qualname
  var namespaces = {};  // local names bound to a whole module
  var uses = [];

  function blockOf(node) {
    var stmt = node;
    while (stmt.parent && !(stmt.parent.statements && stmt.parent.statements.indexOf(stmt) >= 0)) {
      stmt = stmt.parent;
    }
    var list = stmt.parent ? stmt.parent.statements : [stmt];
    var first = list[0];
    if (list.length > 1 && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression)) {
      list = list.slice(1);  // a 'use strict' directive is not code to complete
    }
    return [list[0].getStart(file), list[list.length - 1].getEnd()];
  }

  function add(qualname, nameNode, kind, resolved, anchor) {
    uses.push({
      qualname: qualname, name: nameNode.text, kind: kind, resolved: resolved,
      token: [nameNode.getStart(file), nameNode.getEnd()], block: blockOf(anchor)
    });
  }

  function bind(node) {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      var root = moduleRoot(node.moduleSpecifier.text);
      var clause = node.importClause;
      if (root && clause) {
        if (clause.name) { bindings[clause.name.text] = root; namespaces[clause.name.text] = 1; }
        var named = clause.namedBindings;
        if (named && ts.isNamespaceImport(named)) {
          bindings[named.name.text] = root; namespaces[named.name.text] = 1;
        } else if (named) {
          named.elements.forEach(function (el) {
            var imported = el.propertyName || el.name;
            bindings[el.name.text] = root + '.' + imported.text;
            add(root + '.' + imported.text, imported, 'import', true, node);
          });
        }
      }
    } else if (ts.isImportEqualsDeclaration(node) &&
               ts.isExternalModuleReference(node.moduleReference)) {
      var ref = node.moduleReference.expression;
      var r = ts.isStringLiteral(ref) ? moduleRoot(ref.text) : null;
      if (r) { bindings[node.name.text] = r; namespaces[node.name.text] = 1; }
    } else if (ts.isVariableDeclaration(node) && node.initializer) {
      var init = node.initializer;
      var suffix = '';
      while (ts.isPropertyAccessExpression(init)) {  // require('x').a.b
        suffix = '.' + init.name.text + suffix;
        init = init.expression;
      }
      var spec = requireSpec(init);
      var base = spec === null ? null : moduleRoot(spec);
      if (base) {
        if (ts.isIdentifier(node.name)) {
          bindings[node.name.text] = base + suffix;
          if (!suffix) namespaces[node.name.text] = 1;
        } else if (ts.isObjectBindingPattern(node.name)) {
          node.name.elements.forEach(function (el) {
            var key = el.propertyName || el.name;
            if (!ts.isIdentifier(key) || !ts.isIdentifier(el.name)) return;
            bindings[el.name.text] = base + suffix + '.' + key.text;
            add(base + suffix + '.' + key.text, key, 'import', true, node);
          });
        }
      }
    }
    ts.forEachChild(node, bind);
  }

  function unwrap(node) {
    while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) ||
           ts.isNonNullExpression(node)) {
      node = node.expression;
    }
    return node;
  }

  function qualname(node) {
    node = unwrap(node);
    if (ts.isIdentifier(node)) {
      return Object.prototype.hasOwnProperty.call(bindings, node.text) ? bindings[node.text] : null;
    }
    if (ts.isPropertyAccessExpression(node)) {
      var base = qualname(node.expression);
      return base ? base + '.' + node.name.text : null;
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      var callee = qualname(node.expression);
      return callee ? callee + '()' : null;
    }
    return null;
  }

  function declares(node) {
    var p = node.parent;
    if (!p) return true;
    if (p.name === node && !ts.isPropertyAccessExpression(p)) return true;
    if (ts.isBindingElement(p) && p.propertyName === node) return true;
    if (ts.isPropertyAccessExpression(p) && p.name === node) return true;
    return ts.isImportClause(p) || ts.isNamespaceImport(p) || ts.isImportSpecifier(p) ||
      ts.isImportEqualsDeclaration(p) || ts.isQualifiedName(p) || ts.isTypeReferenceNode(p);
  }

  function calleeOf(node) {
    var p = node.parent;
    while (p && (ts.isParenthesizedExpression(p) || ts.isAsExpression(p) ||
                 ts.isNonNullExpression(p)) && p.expression === node) {
      node = p; p = p.parent;
    }
    return p && (ts.isCallExpression(p) || ts.isNewExpression(p) ||
                 ts.isTaggedTemplateExpression(p)) &&
      (p.expression === node || p.tag === node);
  }

  function visit(node) {
    var p = node.parent;
    if (ts.isPropertyAccessExpression(node) || (ts.isIdentifier(node) && !declares(node))) {
      var longer = p && ts.isPropertyAccessExpression(p) && p.expression === node;
      if (!longer) {
        var kind = calleeOf(node) ? 'call' : 'reference';
        var q = qualname(node);
        var nameNode = ts.isIdentifier(node) ? node : node.name;
        if (q === null) {
          if (ts.isPropertyAccessExpression(node)) add('?.' + nameNode.text, nameNode, kind, false, node);
        } else if (!(ts.isIdentifier(node) && namespaces[node.text] && kind !== 'call')) {
          add(q, nameNode, kind, true, node);
        }
      }
    }
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      var callee = qualname(node.expression);
      var resolved = callee !== null;
      var target = unwrap(node.expression);
      if (!resolved && ts.isPropertyAccessExpression(target)) callee = '?.' + target.name.text;
      if (callee !== null) {
        (node.arguments || []).forEach(function (arg) {
          if (!ts.isObjectLiteralExpression(arg)) return;
          arg.properties.forEach(function (prop) {
            var key = prop.name;
            if (key && (ts.isIdentifier(key) || ts.isStringLiteral(key))) {
              add(callee + '({' + key.text + '})', key, 'keyword', resolved, node);
            }
          });
        });
      }
    }
    ts.forEachChild(node, visit);
  }

  bind(file);
  visit(file);
  return { uses: uses };
}

module.exports = function (typescript) {
  ts = typescript;
  return function (job) {
    LIBRARY = job[0];
    return main(job[1]);
  };
};
