'use strict';
// Deprecation signals Node and the npm packages raise under the program's code (Node 12 and
// later; no syntax newer than ES2019): `process.emitWarning(..., 'DeprecationWarning')`, which
// Node's own deprecations (DEP codes) and `util.deprecate` go through. Installed before the
// program loads; a signal is recorded before Node decides whether to print it, so
// `--no-deprecation`-style switches do not hide it. It counts when the program's file is on the
// stack and did not issue the warning itself. Replacing `process.emitWarning`, setting
// `process.noDeprecation` (which makes `util.deprecate` skip its warning), or making the stack
// unreadable (`Error.prepareStackTrace` or `Error.stackTraceLimit` fixed by the program) is
// tampering: such a sample is never a clean pass.
//
// The recorder's state lives in closures no program code can reach, and every built-in it
// calls is taken when this file loads, before the program runs (as Node's own `primordials`
// are): a program that patches `Array.prototype.indexOf`, `Set.prototype.has`, a CallSite's
// methods or `Object.prototype.toJSON` changes nothing here.
const fs = require('fs');
const url = require('url');

const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const ReflectApply = Reflect.apply;
const ArrayIsArray = Array.isArray;
const indexOf = uncurry(Array.prototype.indexOf);
const push = uncurry(Array.prototype.push);
const arraySlice = uncurry(Array.prototype.slice);
const setHas = uncurry(Set.prototype.has);
const setAdd = uncurry(Set.prototype.add);
const slice = uncurry(String.prototype.slice);
const trim = uncurry(String.prototype.trim);
const split = uncurry(String.prototype.split);
const regExec = uncurry(RegExp.prototype.exec);
const isError = uncurry(Function.prototype[Symbol.hasInstance], Error);
const StringOf = String;
const SetCtor = Set;
const create = Object.create;
const defineProperty = Object.defineProperty;
const captureStack = Error.captureStackTrace;
const readFileSync = fs.readFileSync;
const pathToFileURL = url.pathToFileURL;
const callSite = (function () {
  const holder = {};
  const prepare = Error.prepareStackTrace;
  let stack;
  Error.prepareStackTrace = function (_, callSites) { return callSites; };
  try {
    captureStack(holder);
    stack = holder.stack; // formatted when first read, with the prepareStackTrace of then
  } finally {
    Error.prepareStackTrace = prepare;
  }
  const proto = Object.getPrototypeOf(stack[0]);
  return { file: uncurry(proto.getFileName), line: uncurry(proto.getLineNumber) };
})();

const MAX = 50;
const NAME = /[`'"]?((?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$][\w$]*(?:\(\))?)[`'"]? (?:is|are|was|has been|have been) (?:deprecated|removed|renamed)/;

function install(programPath, sink) {
  const state = { found: [], tampered: false };
  const seen = new SetCtor();
  const files = [programPath, pathToFileURL(programPath).href];
  let lines = null;
  let busy = false;
  const original = process.emitWarning;

  function frames() {
    const holder = {};
    const limit = Error.stackTraceLimit;
    const prepare = Error.prepareStackTrace;
    try {
      Error.stackTraceLimit = 64;
      Error.prepareStackTrace = function (_, callSites) { return callSites; };
      captureStack(holder, wrapper);
      const stack = holder.stack;
      if (!ArrayIsArray(stack)) state.tampered = true; // the program fixed how stacks read
      return ArrayIsArray(stack) ? stack : [];
    } catch (err) {
      state.tampered = true; // a stack setting the program made unwritable
      return [];
    } finally {
      try {
        Error.prepareStackTrace = prepare;
        Error.stackTraceLimit = limit;
      } catch (err) {
        state.tampered = true;
      }
    }
  }

  function programLine(callSites) {
    for (let i = 0; i < callSites.length; i++) {
      const file = callSite.file(callSites[i]);
      if (indexOf(files, file) >= 0) {
        if (i === 0) return null; // the program warned itself: not the library's signal
        return callSite.line(callSites[i]);
      }
    }
    return null;
  }

  function sourceLine(number) {
    if (lines === null) {
      try {
        lines = split(readFileSync(programPath, 'utf8'), '\n');
      } catch (err) {
        lines = [];
      }
    }
    return number > 0 && number <= lines.length ? slice(trim(lines[number - 1]), 0, 200) : '';
  }

  function isDeprecation(warning, type) {
    if (typeof type === 'string') return type === 'DeprecationWarning';
    if (type && typeof type === 'object' && typeof type.type === 'string') {
      return type.type === 'DeprecationWarning';
    }
    return isError(warning) && warning.name === 'DeprecationWarning';
  }

  function note(warning, type, code) {
    if (busy || !isDeprecation(warning, type)) return;
    busy = true;
    try {
      const line = programLine(frames());
      if (line === null) return;
      const message = slice(StringOf(isError(warning) ? warning.message : warning), 0, 300);
      if (typeof code !== 'string' && type && typeof type === 'object') code = type.code;
      if (typeof code !== 'string' && isError(warning)) code = warning.code;
      const key = message + '\u0000' + line;
      if (setHas(seen, key) || state.found.length >= MAX) return;
      setAdd(seen, key);
      const named = regExec(NAME, message);
      const entry = create(null); // no prototype: no toJSON or getter of the program's applies
      entry.category = 'DeprecationWarning';
      entry.message = message;
      entry.api = typeof code === 'string' ? slice(code, 0, 120) : named ? slice(named[1], 0, 120) : null;
      entry.line = line;
      entry.code = sourceLine(line);
      push(state.found, entry);
      sink(entry);
    } catch (err) {
      // a warning whose text cannot be taken: the program's run goes on
    } finally {
      busy = false;
    }
  }

  function wrapper(warning, type, code) {
    note(warning, type, code);
    return ReflectApply(original, this, arguments);
  }

  process.emitWarning = wrapper;
  let noDeprecation = process.noDeprecation;
  defineProperty(process, 'noDeprecation', {
    configurable: false,
    get: function () { return noDeprecation; },
    set: function (value) {
      if (value) state.tampered = true;
      noDeprecation = value;
    },
  });
  state.list = function () {
    return arraySlice(state.found, 0, MAX);
  };
  state.check = function () {
    if (process.emitWarning !== wrapper) state.tampered = true;
    return state.tampered;
  };
  return state;
}

module.exports = { install: install };
