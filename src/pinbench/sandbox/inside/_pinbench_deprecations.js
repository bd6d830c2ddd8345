'use strict';
// Deprecation signals Node and the npm packages raise under the program's code (Node 12 and
// later; no syntax newer than ES2019): `process.emitWarning(..., 'DeprecationWarning')`, which
// Node's own deprecations (DEP codes) and `util.deprecate` go through. Installed before the
// program loads; a signal is recorded before Node decides whether to print it, so
// `--no-deprecation`-style switches do not hide it. It counts when the program's file is on the
// stack and did not issue the warning itself. Replacing `process.emitWarning`, or setting
// `process.noDeprecation` (which makes `util.deprecate` skip its warning), is tampering: such
// a sample is never a clean pass.
const fs = require('fs');
const url = require('url');

const MAX = 50;
const NAME = /[`'"]?((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:\(\))?)[`'"]? (?:is|are|was|has been|have been) (?:deprecated|removed|renamed)/;

function install(programPath, sink) {
  const state = { found: [], tampered: false };
  const seen = new Set();
  const files = [programPath, url.pathToFileURL(programPath).href];
  let lines = null;
  let busy = false;
  const original = process.emitWarning;
  const captureStack = Error.captureStackTrace;

  function frames() {
    const holder = {};
    const limit = Error.stackTraceLimit;
    const prepare = Error.prepareStackTrace;
    try {
      Error.stackTraceLimit = 64;
      Error.prepareStackTrace = function (_, callSites) { return callSites; };
      captureStack(holder, wrapper);
      return Array.isArray(holder.stack) ? holder.stack : [];
    } finally {
      Error.prepareStackTrace = prepare;
      Error.stackTraceLimit = limit;
    }
  }

  function programLine(callSites) {
    for (let i = 0; i < callSites.length; i++) {
      const file = callSites[i].getFileName && callSites[i].getFileName();
      if (files.indexOf(file) >= 0) {
        if (i === 0) return null; // the program warned itself: not the library's signal
        return callSites[i].getLineNumber();
      }
    }
    return null;
  }

  function sourceLine(number) {
    if (lines === null) {
      try {
        lines = fs.readFileSync(programPath, 'utf8').split('\n');
      } catch (err) {
        lines = [];
      }
    }
    return number > 0 && number <= lines.length ? lines[number - 1].trim().slice(0, 200) : '';
  }

  function isDeprecation(warning, type) {
    if (typeof type === 'string') return type === 'DeprecationWarning';
    if (type && typeof type === 'object' && typeof type.type === 'string') {
      return type.type === 'DeprecationWarning';
    }
    return warning instanceof Error && warning.name === 'DeprecationWarning';
  }

  function note(warning, type, code) {
    if (busy || !isDeprecation(warning, type)) return;
    busy = true;
    try {
      const line = programLine(frames());
      if (line === null) return;
      const message = String(warning instanceof Error ? warning.message : warning).slice(0, 300);
      if (typeof code !== 'string' && type && typeof type === 'object') code = type.code;
      if (typeof code !== 'string' && warning instanceof Error) code = warning.code;
      const key = message + '\u0000' + line;
      if (seen.has(key) || state.found.length >= MAX) return;
      seen.add(key);
      const named = NAME.exec(message);
      const entry = {
        category: 'DeprecationWarning',
        message: message,
        api: typeof code === 'string' ? code.slice(0, 120) : named ? named[1].slice(0, 120) : null,
        line: line,
        code: sourceLine(line),
      };
      state.found.push(entry);
      sink(entry);
    } catch (err) {
      // a warning whose text cannot be taken: the program's run goes on
    } finally {
      busy = false;
    }
  }

  function wrapper(warning, type, code) {
    note(warning, type, code);
    return original.apply(this, arguments);
  }

  process.emitWarning = wrapper;
  let noDeprecation = process.noDeprecation;
  Object.defineProperty(process, 'noDeprecation', {
    configurable: false,
    get: function () { return noDeprecation; },
    set: function (value) {
      if (value) state.tampered = true;
      noDeprecation = value;
    },
  });
  state.check = function () {
    if (process.emitWarning !== wrapper) state.tampered = true;
    return state.tampered;
  };
  return state;
}

module.exports = { install: install };
