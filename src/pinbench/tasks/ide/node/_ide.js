// A handler of pinbench's parser server (`envs/node/syntax.py`) for the IDE scenarios on
// JavaScript and TypeScript repositories. It reads code and never runs it: the TypeScript
// compiler's parser and checker, ESLint's Linter with pinbench's own configuration (its
// recommended rules, typescript-eslint's parser for TypeScript, eslint-plugin-jsdoc for the doc
// scenario's format check). No repository configuration is read: it could load plugins.
//
// Requests (one JSON object each, `op` says which):
//   outline  {path, source}              the file's functions and classes
//   region   {path, source, line}        the lines of the innermost function or top-level
//                                        statement around a line
//   doccheck {path, source, qualname}    whether the function has a JSDoc comment and what
//                                        its format lacks
//   lint     {root, files, typescript}   ESLint (and tsc for TypeScript) diagnostics of files
//                                        of a private copy of a repository
//   newest   {range, versions}           the newest of the versions a semver range allows
//                                        (npm's own `semver`), or null
'use strict';
const fs = require('fs');
const path = require('path');

module.exports = function (ts, modules) {
  let eslint = null;
  function linters() {
    if (eslint === null) {
      const need = (name) => require(require.resolve(name, { paths: [modules] }));
      eslint = {
        Linter: need('eslint').Linter,
        js: need('@eslint/js'),
        jsdoc: need('eslint-plugin-jsdoc'),
        tsParser: need('@typescript-eslint/parser'),
        tseslint: need('typescript-eslint'),
        globals: need('globals'),
      };
    }
    return eslint;
  }

  function isTypeScript(file) {
    return /\.(ts|tsx|mts|cts)$/.test(file);
  }

  function parse(file, source) {
    const kind = /\.tsx$/.test(file) ? ts.ScriptKind.TSX
      : isTypeScript(file) ? ts.ScriptKind.TS
      : /\.jsx$/.test(file) ? ts.ScriptKind.JSX : ts.ScriptKind.JS;
    return ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, kind);
  }

  function lineOf(sf, pos) {
    return sf.getLineAndCharacterOfPosition(pos).line + 1;
  }

  // the JSDoc block right before a statement: [start, end] positions
  function jsdocRange(sf, node) {
    const ranges = ts.getLeadingCommentRanges(sf.text, node.pos) || [];
    const last = ranges[ranges.length - 1];
    if (!last || last.kind !== ts.SyntaxKind.MultiLineCommentTrivia) return null;
    if (sf.text.slice(last.pos, last.pos + 3) !== '/**' || sf.text.slice(last.pos, last.pos + 4) === '/**/') {
      return null;
    }
    // directly before it, as eslint-plugin-jsdoc attaches a comment: no blank line between
    if (!/^[ \t]*(\r?\n)?[ \t]*$/.test(sf.text.slice(last.end, node.getStart(sf)))) return null;
    return [last.pos, last.end];
  }

  function hasModifier(node, kind) {
    const mods = ts.canHaveModifiers && ts.canHaveModifiers(node) ? ts.getModifiers(node) : node.modifiers;
    return !!(mods && mods.some((m) => m.kind === kind));
  }

  function isFunctionLike(node) {
    return node && (ts.isFunctionExpression(node) || ts.isArrowFunction(node)
      || ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)
      || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node) || ts.isSetAccessor(node));
  }

  // what a function's own body does (nested functions and classes are their own business)
  function facts(fn) {
    const thrown = [];
    let returns = false;
    let yields = false;
    function visit(node) {
      if (node !== fn && (isFunctionLike(node) || ts.isClassLike(node))) return;
      if (ts.isReturnStatement(node) && node.expression) returns = true;
      if (ts.isYieldExpression(node)) yields = true;
      if (ts.isThrowStatement(node) && node.expression && ts.isNewExpression(node.expression)) {
        const name = node.expression.expression.getText();
        if (thrown.indexOf(name) < 0) thrown.push(name);
      }
      ts.forEachChild(node, visit);
    }
    if (fn.body) {
      if (ts.isBlock(fn.body)) visit(fn.body);
      else returns = true; // an arrow's expression body is its value
    }
    const params = fn.parameters.map((p, i) => (ts.isIdentifier(p.name) ? p.name.text : 'root' + i))
      .filter((name) => name !== 'this');
    return { params: params, returns: returns, yields: yields, throws: thrown };
  }

  // names a CommonJS or ES module exports
  function exportedNames(sf) {
    const names = new Set();
    function objectNames(obj) {
      obj.properties.forEach((p) => {
        if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) names.add(p.name.text);
      });
    }
    sf.statements.forEach((st) => {
      if (ts.isExportAssignment(st) && ts.isIdentifier(st.expression)) names.add(st.expression.text);
      if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) {
        st.exportClause.elements.forEach((e) => names.add((e.propertyName || e.name).text));
      }
      if (hasModifier(st, ts.SyntaxKind.ExportKeyword)) {
        if (st.name && ts.isIdentifier(st.name)) names.add(st.name.text);
        if (ts.isVariableStatement(st)) {
          st.declarationList.declarations.forEach((d) => { if (ts.isIdentifier(d.name)) names.add(d.name.text); });
        }
      }
      if (ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression)
          && st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        const left = st.expression.left.getText(sf);
        const right = st.expression.right;
        if (left === 'module.exports') {
          if (ts.isObjectLiteralExpression(right)) objectNames(right);
          else if (ts.isIdentifier(right)) names.add(right.text);
          else if ((ts.isFunctionExpression(right) || ts.isClassExpression(right)) && right.name) names.add(right.name.text);
        }
        const m = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(left);
        if (m) {
          names.add(m[1]);
          if (ts.isIdentifier(right)) names.add(right.text);
        }
      }
    });
    return names;
  }

  function entry(sf, statement, fn, qualname, name, exported, inClass) {
    const doc = jsdocRange(sf, statement);
    const body = fn.body && ts.isBlock(fn.body) ? fn.body : null;
    const lines = new Set([lineOf(sf, statement.getStart(sf)), lineOf(sf, fn.getStart(sf))]);
    if (fn.name) lines.add(lineOf(sf, fn.name.getStart(sf)));
    const f = facts(fn);
    return {
      qualname: qualname,
      name: name,
      line: lineOf(sf, statement.getStart(sf)),
      end: lineOf(sf, statement.getEnd()),
      lines: Array.from(lines).sort((a, b) => a - b),
      body: body ? [lineOf(sf, body.getStart(sf)), lineOf(sf, body.getEnd())] : null,
      // the body's statements fill whole lines: `{` ends its line, `}` starts its own
      body_whole_lines: !!body && /^[ \t]*(\r?\n|$)/.test(sf.text.slice(body.getStart(sf) + 1))
        && /(^|\n)[ \t]*$/.test(sf.text.slice(0, body.getEnd() - 1)),
      doc: doc ? sf.text.slice(doc[0], doc[1]) : null,
      doc_lines: doc ? [lineOf(sf, doc[0]), lineOf(sf, doc[1])] : null,
      indent: /[ \t]*$/.exec(sf.text.slice(0, statement.getStart(sf)))[0],
      params: f.params,
      returns: f.returns,
      yields: f.yields,
      throws: f.throws,
      exported: exported,
      in_class: inClass,
      private: name.charAt(0) === '_' || name.charAt(0) === '#'
        || hasModifier(fn, ts.SyntaxKind.PrivateKeyword) || hasModifier(fn, ts.SyntaxKind.ProtectedKeyword),
    };
  }

  function outline(file, source) {
    const sf = parse(file, source);
    const exported = exportedNames(sf);
    const functions = [];
    const classes = [];
    function addClass(statement, cls, name) {
      const isExported = exported.has(name) || hasModifier(statement, ts.SyntaxKind.ExportKeyword);
      classes.push({ qualname: name, line: lineOf(sf, statement.getStart(sf)), end: lineOf(sf, statement.getEnd()) });
      cls.members.forEach((member) => {
        if (!(ts.isMethodDeclaration(member) || ts.isConstructorDeclaration(member)) || !member.body) return;
        const mname = ts.isConstructorDeclaration(member) ? 'constructor'
          : member.name && (ts.isIdentifier(member.name) || ts.isPrivateIdentifier(member.name)) ? member.name.text : null;
        if (mname) functions.push(entry(sf, member, member, name + '.' + mname, mname, isExported, true));
      });
    }
    function addObject(obj, prefixExported) {
      obj.properties.forEach((p) => {
        if (ts.isMethodDeclaration(p) && p.body && ts.isIdentifier(p.name)) {
          functions.push(entry(sf, p, p, p.name.text, p.name.text, prefixExported, false));
        } else if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) && isFunctionLike(p.initializer)) {
          functions.push(entry(sf, p, p.initializer, p.name.text, p.name.text, prefixExported, false));
        }
      });
    }
    sf.statements.forEach((st) => {
      if (ts.isFunctionDeclaration(st) && st.name && st.body) {
        functions.push(entry(sf, st, st, st.name.text, st.name.text,
          exported.has(st.name.text) || hasModifier(st, ts.SyntaxKind.ExportKeyword), false));
      } else if (ts.isClassDeclaration(st) && st.name) {
        addClass(st, st, st.name.text);
      } else if (ts.isVariableStatement(st) && st.declarationList.declarations.length === 1) {
        const d = st.declarationList.declarations[0];
        if (ts.isIdentifier(d.name) && isFunctionLike(d.initializer)) {
          functions.push(entry(sf, st, d.initializer, d.name.text, d.name.text, exported.has(d.name.text), false));
        } else if (ts.isIdentifier(d.name) && d.initializer && ts.isClassExpression(d.initializer)) {
          addClass(st, d.initializer, d.name.text);
        }
      } else if (ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression)
          && st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        const left = st.expression.left.getText(sf);
        const right = st.expression.right;
        const m = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(left);
        if (m && isFunctionLike(right)) functions.push(entry(sf, st, right, m[1], m[1], true, false));
        if (left === 'module.exports' && ts.isObjectLiteralExpression(right)) addObject(right, true);
      }
    });
    return { functions: functions, classes: classes };
  }

  // the innermost function-like (with a block body) or top-level statement around a line
  function region(file, source, line) {
    const sf = parse(file, source);
    let best = null;
    function visit(node) {
      const start = lineOf(sf, node.getStart(sf));
      const end = lineOf(sf, node.getEnd());
      if (start > line || end < line) return;
      if (isFunctionLike(node) && node.body && ts.isBlock(node.body)) {
        let outer = node;  // with its declaration: `const f = () => {...}`, `a.b = function`
        while (outer.parent && !ts.isSourceFile(outer.parent) && !ts.isBlock(outer.parent)
               && !ts.isClassLike(outer.parent) && !ts.isObjectLiteralExpression(outer.parent)
               && !isFunctionLike(outer.parent) && lineOf(sf, outer.parent.getStart(sf)) >= start - 1) {
          outer = outer.parent;
        }
        best = [lineOf(sf, outer.getStart(sf)), lineOf(sf, outer.getEnd())];
      }
      ts.forEachChild(node, visit);
    }
    for (const st of sf.statements) {
      const start = lineOf(sf, st.getStart(sf));
      const end = lineOf(sf, st.getEnd());
      if (start <= line && line <= end) {
        best = [start, end];
        visit(st);
        return best;
      }
    }
    return null;
  }

  function findFunction(file, source, qualname) {
    return outline(file, source).functions.find((f) => f.qualname === qualname) || null;
  }

  const DOC_RULES = {
    'jsdoc/require-description': ['error', { descriptionStyle: 'any' }],
    'jsdoc/require-param': ['error', { checkDestructured: false, checkDestructuredRoots: true }],
    'jsdoc/check-param-names': ['error', { checkDestructured: false }],
    'jsdoc/require-param-name': 'error',
    'jsdoc/require-returns': ['error', { forceReturnsWithAsync: false }],
    'jsdoc/require-yields': 'error',
    'jsdoc/require-throws': 'error',
    'jsdoc/valid-types': 'error',
  };

  function words(text) {
    return (text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().match(/[a-z0-9]+/g) || []);
  }

  // the doc scenario's format check of one function's JSDoc (eslint-plugin-jsdoc's rules,
  // then what they leave: each thrown class named, a summary that says more than the name)
  function doccheck(file, source, qualname) {
    const fn = findFunction(file, source, qualname);
    if (!fn) return { found: false, attached: false, problems: ['no function ' + qualname] };
    if (!fn.doc) return { found: true, attached: false, problems: ['no JSDoc comment'] };
    const l = linters();
    const config = [{
      files: FILES,
      plugins: { jsdoc: l.jsdoc },
      settings: { jsdoc: { mode: isTypeScript(file) ? 'typescript' : 'jsdoc' } },
      languageOptions: languageOptions(file, l),
      linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
      rules: DOC_RULES,
    }];
    const messages = verified(new l.Linter({ configType: 'flat' }), source, config, file);
    const problems = messages
      .filter((m) => m.fatal || (m.line >= fn.doc_lines[0] && m.line <= fn.doc_lines[1]))
      .map((m) => (m.ruleId ? m.ruleId + ': ' : '') + m.message);
    const tags = fn.doc.split(/\n/).map((line) => line.replace(/^\s*\/?\*+\/?/, '').trim());
    const throwsText = tags.filter((t) => /^@(throws|exception)\b/.test(t)).join(' ');
    fn.throws.forEach((cls) => {
      if (!new RegExp('(^|[^\\w$.])' + cls.replace(/[$.]/g, '\\$&') + '($|[^\\w$])').test(throwsText)) {
        problems.push('@throws does not name ' + cls);
      }
    });
    const summary = tags.filter((t) => t && t.charAt(0) !== '@').join(' ');
    const own = new Set(words(fn.name));
    const said = words(summary).filter((w) => ['the', 'a', 'an', 'of', 'this', 'function', 'method'].indexOf(w) < 0);
    if (said.length && said.every((w) => own.has(w))) problems.push('the summary only restates the name');
    return { found: true, attached: true, problems: problems };
  }

  function languageOptions(file, l) {
    const options = {
      ecmaVersion: 'latest',
      sourceType: /\.cjs$/.test(file) ? 'commonjs' : 'module',
      globals: Object.assign({}, l.globals.node, l.globals.es2021),
    };
    if (isTypeScript(file)) options.parser = l.tsParser;
    return options;
  }

  const FILES = ['**/*.js', '**/*.cjs', '**/*.mjs', '**/*.jsx', '**/*.ts', '**/*.cts', '**/*.mts', '**/*.tsx'];

  // ESLint's messages. The repository's inline directives (`eslint-disable`) are not read (a
  // fix must not hide a problem): ESLint's notes about them are dropped; a configuration that
  // does not apply to the file is pinbench's bug.
  function verified(linter, source, config, file) {
    const messages = linter.verify(source, config, { filename: file });
    messages.forEach((m) => {
      if (!m.ruleId && !m.fatal && /No matching configuration/.test(m.message)) {
        throw new Error('ESLint on ' + file + ': ' + m.message);
      }
    });
    return messages.filter((m) => m.ruleId || m.fatal);
  }

  // TypeScript diagnostics about imports and configuration, not the code a model could fix
  const TSC_SKIP = new Set([1192, 1259, 1479, 1471, 2305, 2306, 2307, 2318, 2497, 2614, 2688, 2792, 7016, 18003]);
  // ESLint's recommended rules; for TypeScript, typescript-eslint's recommended configuration
  // (its parser, its rules, the core rules it turns off because the compiler checks them)
  function lintConfig(file, l) {
    const base = {
      files: FILES, languageOptions: languageOptions(file, l), rules: l.js.configs.recommended.rules,
      linterOptions: { noInlineConfig: true, reportUnusedDisableDirectives: 'off' },
    };
    if (!isTypeScript(file)) return [base];
    const typed = l.tseslint.configs.recommended.map((c) => Object.assign({}, c, { files: FILES }));
    return [base].concat(typed);
  }

  // {diagnostics, errors}: a file ESLint or tsc cannot read is an error of its own, the
  // others are still linted
  function lint(root, files, typescript) {
    const l = linters();
    const found = [];
    const errors = [];
    files.forEach((rel) => {
      const file = path.join(root, rel);
      try {
        const source = fs.readFileSync(file, 'utf8');
        const linter = new l.Linter({ configType: 'flat', cwd: root });
        verified(linter, source, lintConfig(rel, l), rel).forEach((m) => {
          if (m.fatal || !m.ruleId) return; // a parse error: the syntax check's business
          found.push({ tool: 'eslint', rule: m.ruleId, message: m.message, path: rel, line: m.line,
            column: m.column || 0, severity: m.severity === 2 ? 'error' : 'warning' });
        });
      } catch (err) {
        errors.push({ path: rel, message: String((err && err.message) || err).slice(0, 500) });
      }
    });
    if (typescript) {
      const options = {
        strict: true, noUnusedLocals: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.CommonJS,
        moduleResolution: ts.ModuleResolutionKind.Node10, esModuleInterop: true, skipLibCheck: true,
        allowJs: false, lib: ['lib.es2022.d.ts'],
        typeRoots: [path.join(root, 'node_modules', '@types')],
        types: fs.existsSync(path.join(root, 'node_modules', '@types', 'node')) ? ['node'] : [],
      };
      const roots = files.filter(isTypeScript).map((rel) => path.join(root, rel));
      const program = ts.createProgram(roots, options);
      roots.forEach((file) => {
        const sf = program.getSourceFile(file);
        if (!sf) return;
        program.getSemanticDiagnostics(sf).forEach((d) => {
          if (TSC_SKIP.has(d.code) || d.start === undefined) return;
          const at = sf.getLineAndCharacterOfPosition(d.start);
          found.push({ tool: 'tsc', rule: 'TS' + d.code, message: ts.flattenDiagnosticMessageText(d.messageText, ' '),
            path: path.relative(root, file), line: at.line + 1, column: at.character + 1,
            severity: d.category === ts.DiagnosticCategory.Error ? 'error' : 'warning' });
        });
      });
    }
    return { diagnostics: found, errors: errors };
  }

  return function (request) {
    switch (request.op) {
      case 'outline': return outline(request.path, request.source);
      case 'region': return region(request.path, request.source, request.line);
      case 'doccheck': return doccheck(request.path, request.source, request.qualname);
      case 'lint': return lint(request.root, request.files, !!request.typescript);
      case 'newest': {
        const semver = require(require.resolve('semver', { paths: [modules] }));
        return semver.maxSatisfying(request.versions, request.range);
      }
      default: throw new Error('unknown request ' + request.op);
    }
  };
};
