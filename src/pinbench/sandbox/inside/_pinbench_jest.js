'use strict';
// pinbench's runner of Jest-, Mocha- and node:test-style test modules, in the sandbox, on the
// program's own Node (12 and later: no syntax newer than ES2019 here).
//
//   node _pinbench_jest.js local PROGRAM TEST RESULT_FD [1: record deprecation signals]
//   node _pinbench_jest.js remote DATA_FD BELL_FD TEST RESULT_FD
//   node _pinbench_jest.js repo ROOT TEST COVER RESULT_FD [PROGRAM_FILE]
//
// Gives the test `describe`/`test`/`it`, the hooks (Jest's and Mocha's names), Jest's `expect`
// and `jest.fn`/`jest.spyOn` (the environment's), makes `require('./<name>')` in the test
// return the program, runs every test in order and writes one JSON result to RESULT_FD.
// `local`: the program is loaded here (CommonJS by require, an ES module by import()): the
// test runs in the program's process, and that verdict is forgeable (pinbench reports it so).
// `remote` (trusted grading): the program runs in its own process (_pinbench_program.js) and is
// reached through the channel (_pinbench_channel.js): this process is the grader.
// `repo`: one test file of a repository laid out at ROOT (TypeScript files transpiled as they
// are required), each test's outcome recorded and, with COVER 1, the repository's functions it
// called (V8's precise coverage, taken around each test with its hooks).
const fs = require('fs');
const path = require('path');
const Module = require('module');
const url = require('url');
const vm = require('vm');

const argv = process.argv.slice(2);
const remote = argv[0] === 'remote';
const repo = argv[0] === 'repo';
const testPath = remote ? argv[3] : argv[2];
const resultFd = Number(remote || repo ? argv[4] : argv[3]);
const repoRoot = repo ? argv[1] : null;
// remote: `require('./<module>')` in the test (test_<module>.js) names the program's module
const programPath = repo
  ? null
  : remote
    ? path.join(path.dirname(testPath), path.basename(testPath).replace(/^test_/, ''))
    : argv[1];
let channel = null;
const TEST_TIMEOUT_MS = 10000;
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const exit = process.exit.bind(process);

// local, asked to (or repo, given the program's file): the deprecation signals raised under
// the program's code, in the result
const watched = argv[0] === 'local' && argv[4] === '1' ? programPath : repo ? argv[5] : null;
const deprecations = watched
  ? require('./_pinbench_deprecations.js').install(watched, function () {})
  : null;

let reported = false;
function report(result) {
  if (reported) return;
  reported = true;
  if (deprecations !== null) {
    result.deprecations = { found: deprecations.list(), tampered: deprecations.check() };
  }
  try {
    writeSync(resultFd, stringify(result) + '\n'); // one line: a reader need not await our exit
  } catch (err) {
    process.stderr.write('pinbench: cannot write the result: ' + err + '\n');
  }
  exit(0);
}

function errorInfo(err) {
  if (err instanceof Error || (err && typeof err === 'object' && 'message' in err)) {
    return {
      type: String(err.name || (err.constructor && err.constructor.name) || 'Error'),
      message: String(err.message).slice(0, 4000),
      stack: String(err.stack || '').slice(0, 4000),
    };
  }
  return { type: 'thrown', message: String(err).slice(0, 4000), stack: '' };
}

function suite(name, parent) {
  return {
    name: name, parent: parent, children: [],
    beforeAll: [], afterAll: [], beforeEach: [], afterEach: [],
    skip: false, only: false,
  };
}
const root = suite('', null);
let current = root;
let anyOnly = false;

function fullName(node) {
  const names = [];
  for (let s = node; s; s = s.parent) if (s.name) names.unshift(s.name);
  return names.join(' > ');
}

// what Mocha gives `this` in a suite, test or hook (its settings mean nothing here)
function mochaContext() {
  const context = {};
  context.timeout = context.slow = context.retries = function () { return context; };
  return context;
}

function describe(name, fn, flags) {
  const s = suite(String(name), current);
  Object.assign(s, flags || {});
  if (s.only) anyOnly = true;
  current.children.push({ suite: s });
  const outer = current;
  current = s;
  try {
    if (typeof fn === 'function') fn.call(mochaContext());
  } finally {
    current = outer;
  }
}
function addTest(name, fn, timeout, flags) {
  const t = Object.assign(
    { name: String(name), fn: fn, timeout: timeout, parent: current, skip: false, only: false },
    flags || {}
  );
  if (typeof fn !== 'function') t.skip = true; // a todo
  if (t.only) anyOnly = true;
  current.children.push({ test: t });
}
function test(name, fn, timeout) { addTest(name, fn, timeout); }
test.skip = function (name, fn) { addTest(name, fn, 0, { skip: true }); };
test.only = function (name, fn, timeout) { addTest(name, fn, timeout, { only: true }); };
test.todo = function (name) { addTest(name, undefined, 0, { skip: true }); };
describe.skip = function (name, fn) { describe(name, fn, { skip: true }); };
describe.only = function (name, fn) { describe(name, fn, { only: true }); };

function format(title, args) {
  let i = 0;
  const text = String(title).replace(/%[sdifjpo#%]/g, function (m) {
    if (m === '%%') return '%';
    if (m === '%#') return String(i);
    const v = args[i++];
    return m === '%j' || m === '%p' || m === '%o' ? stringify(v) : String(v);
  });
  return text;
}
function each(register) {
  return function (table) {
    return function (title, fn, timeout) {
      table.forEach(function (row, index) {
        const args = Array.isArray(row) ? row : [row];
        const name = format(String(title).replace(/%#/g, String(index)), args);
        register(name, function () { return fn.apply(this, args); }, timeout);
      });
    };
  };
}
test.each = each(test);
describe.each = each(function (name, fn) { describe(name, fn); });

function hook(kind) {
  return function (fn) { current[kind].push(fn); };
}

// A hook or test: a returned promise is awaited; one declaring a parameter (and returning no
// promise) gets Mocha's/Jest's `done` callback, which also carries node:test's context methods.
function invoke(fn, timeout, label) {
  return new Promise(function (resolve, reject) {
    let settled = false;
    const limit = timeout > 0 ? timeout : TEST_TIMEOUT_MS;
    const timer = setTimeout(function () {
      finish(new Error(label + ' did not finish within ' + limit + ' ms'));
    }, limit);
    function finish(err) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err); else resolve();
    }
    const done = function (err) { finish(err || null); };
    done.fail = function (err) { finish(err instanceof Error ? err : new Error(String(err))); };
    done.skip = function () {};
    done.todo = function () {};
    done.diagnostic = function () {};
    let value;
    try {
      value = fn.call(mochaContext(), done);
    } catch (err) {
      finish(err);
      return;
    }
    if (value && typeof value.then === 'function') {
      value.then(function () { finish(null); }, function (err) {
        finish(err === undefined || err === null ? new Error('rejected with ' + err) : err);
      });
    } else if (fn.length === 0) {
      finish(null);
    }
  });
}

function selected(node) {
  for (let s = node.parent; s; s = s.parent) if (s.only) return true;
  return node.only;
}
function skipped(node) {
  for (let s = node.parent; s; s = s.parent) if (s.skip) return true;
  return node.skip;
}
function eachHooks(s, kind) {
  const chain = [];
  for (let x = s; x; x = x.parent) chain.unshift(x);
  const hooks = [];
  chain.forEach(function (x) { hooks.push.apply(hooks, x[kind]); });
  return kind === 'afterEach' ? hooks.reverse() : hooks;
}

const result = { collected: 0, passed: 0, failed: 0, skipped: 0, failures: [] };
let coverage = null; // repo mode with COVER: the functions each test calls
function record(t, outcome, calls) {
  if (!repo) return;
  const name = fullName(t.parent) ? fullName(t.parent) + ' > ' + t.name : t.name;
  if (!result.tests) result.tests = [];
  result.tests.push({ name: name, outcome: outcome, calls: calls || [] });
}

async function runSuite(s) {
  let setup = null;
  for (const fn of s.beforeAll) {
    try {
      await invoke(fn, 0, 'beforeAll hook');
    } catch (err) {
      setup = err;
      break;
    }
  }
  for (const child of s.children) {
    if (child.suite) {
      if (setup) continue;
      await runSuite(child.suite);
      continue;
    }
    const t = child.test;
    result.collected++;
    if (skipped(t) || (anyOnly && !selected(t))) {
      result.skipped++;
      record(t, 'skipped');
      continue;
    }
    let failure = setup;
    if (coverage) coverage.reset();
    if (!failure) {
      try {
        for (const fn of eachHooks(s, 'beforeEach')) await invoke(fn, 0, 'beforeEach hook');
        await invoke(t.fn, t.timeout, 'test "' + t.name + '"');
      } catch (err) {
        failure = err;
      }
      for (const fn of eachHooks(s, 'afterEach')) {
        try {
          await invoke(fn, 0, 'afterEach hook');
        } catch (err) {
          failure = failure || err;
        }
      }
    }
    const calls = coverage ? coverage.take() : [];
    record(t, failure ? 'failed' : 'passed', calls);
    if (failure) {
      result.failed++;
      const info = errorInfo(failure);
      info.test = fullName(t.parent) ? fullName(t.parent) + ' > ' + t.name : t.name;
      if (result.failures.length < 20) result.failures.push(info);
    } else {
      result.passed++;
    }
  }
  for (const fn of s.afterAll) {
    try {
      await invoke(fn, 0, 'afterAll hook');
    } catch (err) {
      result.failed++;
      const info = errorInfo(err);
      info.test = 'afterAll hook';
      result.failures.push(info);
    }
  }
}

const nodeTest = {
  test: test, it: test, describe: describe, suite: describe,
  before: hook('beforeAll'), after: hook('afterAll'),
  beforeEach: hook('beforeEach'), afterEach: hook('afterEach'),
};
nodeTest.default = test;

function expectFunction() {
  try {
    const loaded = require(require.resolve('expect', { paths: [path.dirname(testPath)] }));
    return typeof loaded === 'function' ? loaded : loaded.expect;
  } catch (err) {
    return undefined;
  }
}

// A CommonJS program that does not compile is a syntax error (not a failure of its test).
function syntaxError(source) {
  try {
    new vm.Script(Module.wrap(source.replace(/^#!.*/, '')), { filename: programPath });
    return null;
  } catch (err) {
    return err instanceof SyntaxError ? err : null;
  }
}

async function loadLocal() {
  const source = programPath.endsWith('.mjs') ? null : fs.readFileSync(programPath, 'utf8');
  const invalid = source === null ? null : syntaxError(source);
  if (invalid) {
    report({ load_error: Object.assign(errorInfo(invalid), { syntax: true }) });
    return undefined;
  }
  try {
    return programPath.endsWith('.mjs')
      ? await import(url.pathToFileURL(programPath).href)
      : require(programPath);
  } catch (err) {
    const info = errorInfo(err);
    info.syntax = programPath.endsWith('.mjs') && err instanceof SyntaxError;
    report({ load_error: info });
    return undefined;
  }
}

function loadRemote() {
  const Channel = require('./_pinbench_channel.js').Channel;
  const serveValues = require('./_pinbench_channel.js').serveValues;
  channel = new Channel(Number(argv[1]), Number(argv[2]), serveValues);
  channel.unref();
  try {
    return channel.request('module', {});
  } catch (err) {
    if (channel.broken !== null) {
      report({ broken: channel.broken });
      return undefined;
    }
    const info = errorInfo(err);
    info.syntax = err && err.code === 'PINBENCH_SYNTAX';
    report({ load_error: info });
    return undefined;
  }
}

// V8's precise coverage (call counts), taken around each test: the functions of the
// repository (not its node_modules, not pinbench's files) a test called, as
// "relative/path:line:name" entries of `result.functions`.
function startCoverage(root, compiled) {
  const inspector = require('inspector');
  const session = new inspector.Session();
  session.connect();
  function post(method, params) {
    let answer = null;
    let failure = null;
    session.post(method, params || {}, function (err, value) { failure = err; answer = value; });
    if (failure) throw failure;
    return answer; // an in-process session answers before post returns
  }
  post('Profiler.enable');
  post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  const functions = [];
  const ids = new Map();
  const starts = new Map();
  function lineAt(file, offset) {
    let table = starts.get(file);
    if (!table) {
      const done = compiled.get(file);
      const text = done ? done.text : fs.readFileSync(file, 'utf8');
      table = { lines: [0], map: done ? done.lines : null };
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) table.lines.push(i + 1);
      starts.set(file, table);
    }
    let low = 0;
    let high = table.lines.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (table.lines[mid] <= offset) low = mid; else high = mid - 1;
    }
    return table.map ? table.map[low] || 0 : low + 1;
  }
  return {
    functions: functions,
    reset: function () { post('Profiler.takePreciseCoverage'); },
    take: function () {
      const called = [];
      post('Profiler.takePreciseCoverage').result.forEach(function (script) {
        const file = script.url.indexOf('file://') === 0 ? url.fileURLToPath(script.url) : script.url;
        if (file.indexOf(root + '/') !== 0 || file.indexOf('/node_modules/') >= 0) return;
        const rel = file.slice(root.length + 1);
        if (rel.indexOf('_pinbench_') === 0) return;
        script.functions.forEach(function (fn) {
          const range = fn.ranges[0];
          if (!range || !range.count || (range.startOffset === 0 && !fn.functionName)) return;
          const key = file + ':' + range.startOffset;
          let id = ids.get(key);
          if (id === undefined) {
            id = functions.push(rel + ':' + lineAt(file, range.startOffset) + ':' + fn.functionName) - 1;
            ids.set(key, id);
          }
          called.push(id);
        });
      });
      return called.sort(function (a, b) { return a - b; });
    },
  };
}

// for each line of transpiled code, the line of the TypeScript source it came from (from the
// source map's first segment on that line; 0 where none)
function sourceLines(mapText) {
  const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const lines = [];
  let source = 0;
  let last = 0;
  JSON.parse(mapText).mappings.split(';').forEach(function (segments) {
    let first = 0;
    segments.split(',').forEach(function (segment, index) {
      const values = [];
      let value = 0;
      let shift = 0;
      for (let i = 0; i < segment.length; i++) {
        const digit = CHARS.indexOf(segment.charAt(i));
        value += (digit & 31) << shift;
        if (digit & 32) { shift += 5; continue; }
        values.push(value & 1 ? -(value >> 1) : value >> 1);
        value = 0;
        shift = 0;
      }
      if (values.length >= 4) {
        source += values[2];
        if (index === 0 || !first) first = source + 1;
      }
    });
    if (first) last = first;
    lines.push(first || last);
  });
  return lines;
}

// TypeScript files of the repository, transpiled (no type check) as they are required, with
// the environment's TypeScript; `compiled` keeps what ran and its line map
function registerTypeScript(root, compiled) {
  let ts;
  try {
    ts = require(require.resolve('typescript', { paths: [root] }));
  } catch (err) {
    return;
  }
  function compile(module, filename) {
    const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2019, esModuleInterop: true,
        sourceMap: true, experimentalDecorators: true, jsx: ts.JsxEmit.React,
      },
    });
    compiled.set(filename, { text: out.outputText, lines: sourceLines(out.sourceMapText || '{"mappings":""}') });
    module._compile(out.outputText, filename);
  }
  ['.ts', '.tsx', '.cts'].forEach(function (ext) { require.extensions[ext] = compile; });
}

function jestObject() {
  try {
    const mock = require(require.resolve('jest-mock', { paths: [path.dirname(testPath)] }));
    const mocker = mock.ModuleMocker ? new mock.ModuleMocker(global) : null;
    if (!mocker) return undefined;
    return {
      fn: mocker.fn.bind(mocker),
      spyOn: mocker.spyOn.bind(mocker),
      restoreAllMocks: mocker.restoreAllMocks.bind(mocker),
      clearAllMocks: mocker.clearAllMocks.bind(mocker),
      resetAllMocks: mocker.resetAllMocks.bind(mocker),
    };
  } catch (err) {
    return undefined;
  }
}

async function loadTest() {
  try {
    if (/\.mjs$/.test(testPath)) {
      await import(url.pathToFileURL(testPath).href);
    } else {
      try {
        require(testPath);
      } catch (err) {
        if (!err || err.code !== 'ERR_REQUIRE_ESM') throw err;
        await import(url.pathToFileURL(testPath).href);
      }
    }
    return true;
  } catch (err) {
    const info = errorInfo(err);
    info.test = '(loading the test)';
    report({ collected: 0, passed: 0, failed: 1, skipped: 0, failures: [info], test_error: true, tests: [] });
    return false;
  }
}

async function main() {
  process.on('unhandledRejection', function () {}); // a test's own failure, seen when awaited
  if (repo) return mainRepo();
  const program = remote ? loadRemote() : await loadLocal();
  if (reported) return;
  const testDir = path.dirname(testPath);
  const programName = path.basename(programPath).replace(/\.[^.]+$/, '');
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, parent) {
    const bare = request.replace(/\.(js|mjs|cjs|ts)$/, '');
    if (bare === './' + programName && parent && path.dirname(parent.filename || '') === testDir) {
      return programPath;
    }
    if (request === 'node:test' || request === 'test') return 'pinbench:node-test';
    return resolve.apply(this, arguments);
  };
  if (programPath.endsWith('.mjs') || !require.cache[programPath]) {
    const m = new Module(programPath);
    m.exports = program;
    m.loaded = true;
    require.cache[programPath] = m;
  }
  installGlobals();
  try {
    require(testPath);
  } catch (err) {
    const info = errorInfo(err);
    info.test = '(loading the test)';
    report({ collected: 0, passed: 0, failed: 1, skipped: 0, failures: [info], test_error: true });
    return;
  }
  await runSuite(root);
  if (channel !== null && channel.broken !== null) result.broken = channel.broken;
  report(result);
}

async function mainRepo() {
  const compiled = new Map();
  registerTypeScript(repoRoot, compiled);
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request) {
    if (request === 'node:test' || request === 'test') return 'pinbench:node-test';
    if (request === '@jest/globals') return 'pinbench:jest-globals';
    return resolve.apply(this, arguments);
  };
  installGlobals();
  const globalsShim = new Module('pinbench:jest-globals');
  globalsShim.exports = Object.assign({}, nodeTest, { expect: global.expect, jest: global.jest });
  globalsShim.loaded = true;
  require.cache['pinbench:jest-globals'] = globalsShim;
  if (argv[3] === '1') coverage = startCoverage(repoRoot, compiled);
  if (!(await loadTest())) return;
  await runSuite(root);
  if (coverage) result.functions = coverage.functions;
  if (!result.tests) result.tests = [];
  report(result);
}

function installGlobals() {
  const shim = new Module('pinbench:node-test');
  shim.exports = nodeTest;
  shim.loaded = true;
  require.cache['pinbench:node-test'] = shim;
  const expect = expectFunction();
  const jest = jestObject();
  Object.assign(global, {
    describe: describe, context: describe, test: test, it: test,
    xit: test.skip, xtest: test.skip, xdescribe: describe.skip,
    fit: test.only, fdescribe: describe.only,
    beforeAll: hook('beforeAll'), afterAll: hook('afterAll'),
    before: hook('beforeAll'), after: hook('afterAll'),
    beforeEach: hook('beforeEach'), afterEach: hook('afterEach'),
  });
  if (expect) global.expect = expect;
  if (jest) global.jest = jest;
}

main().then(null, function (err) {
  report({ collected: 0, passed: 0, failed: 1, skipped: 0, failures: [errorInfo(err)] });
});
