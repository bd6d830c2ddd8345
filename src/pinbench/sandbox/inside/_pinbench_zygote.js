'use strict';
// A warm Node process that forks one confined child per execution, as pinbench's Python warm
// server does (inside/_server.py): Node starts, and the harness's modules load, once per
// server instead of once per execution. Runs in the sandbox the server built, as root of its
// user namespace, with V8's background threads off (node --single-threaded), what Node loads as
// it starts compiled whole (--no-lazy, until preload() is done), a young generation that stays
// large and its code on huge pages where the kernel allows (the flags: _zygotes.py).
//
//   node --single-threaded --no-lazy --min-semi-space-size=16 [--use-largepages=silent] \
//     _pinbench_zygote.js ADDON CONTROL_FD ROLE ENV_ROOT [bare]
//
// ROLE `program`: the program's side of trusted grading (_pinbench_program.js); the zygote is
// pid 1 of a pid namespace of its own, so a program sees no process but its own and this one.
// ROLE `grader`: the grader's side (_pinbench_jest.js remote), with Jest's `expect` loaded.
// Both load the environment's pinned packages first, unless `bare`.
//
// The runner (inside/_runner.py) sends on CONTROL_FD one request per execution, JSON with
// descriptors: [reply, mount namespace, IPC namespace, stdout, stderr, ...the script's own].
// The zygote forks; the child enters the execution's namespaces, puts the standard streams in
// place (the script's own descriptors are named in its arguments as @0, @1, ...), drops to the request's uid under its limits and the
// syscall filter, says `ready` on the reply socket and runs the script as `node SCRIPT ARGS`
// would. The zygote then waits for the runner's `end` on the reply socket (or its closing),
// kills the child and everything it left, and answers the child's wait status.
// The zygote never holds the test, the nonce or the proof: a request carries the grader's test
// only for the grader's zygote, which the program can neither see nor signal.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const argv = process.argv.slice(2);
const z = require(argv[0]);
const control = Number(argv[1]);
const role = argv[2];
const envRoot = argv[3];
const bare = argv[4] === 'bare'; // no pinned package loaded
const CLONE_NEWNS = 0x00020000;
const CLONE_NEWIPC = 0x08000000;

function threads() {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  return Number((/^Threads:\s*(\d+)/m.exec(status) || [0, 0])[1]);
}

function pins() {
  // the environment's pinned packages (not the harness's extras), by name
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(envRoot, 'pinbench-env.json'), 'utf8'));
    return (manifest.pins || []).map(function (pin) { return pin.replace(/(.)@[^@]*$/, '$1'); });
  } catch (err) {
    return [];
  }
}

function load(name) {
  try {
    require(require.resolve(name, { paths: [path.join(envRoot, 'node_modules')] }));
  } catch (err) {
    // not a CommonJS module (types, ES modules), or it fails: the child requires it itself
  }
}

const Module = require('module');
const v8 = require('v8');
const vm = require('vm');
const EAGER_BYTES = 1 << 20;
const compiled = {}; // the grader's script, compiled here once: path -> its module wrapper
function precompile(file) {
  // Only where `import()` in it still works (the harness's Node 21.7+); elsewhere, and for the
  // program's own script, the child requires the script itself.
  const loader = vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (typeof Module.createRequire !== 'function' || loader === undefined) return;
  try {
    const source = Module.wrap(fs.readFileSync(file, 'utf8'));
    compiled[file] = vm.runInThisContext(source, { filename: file, importModuleDynamically: loader });
  } catch (err) {
    // the child requires it itself, and meets the error there
  }
}
function runScript(file) {
  // what `require(file)` does, with the wrapper compiled in the zygote
  const wrapper = compiled[file];
  if (wrapper === undefined) return require(file);
  const m = new Module(file, null);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  Module._cache[file] = m;
  wrapper.call(m.exports, m.exports, Module.createRequire(file), m, file, path.dirname(file));
  m.loaded = true;
}
function preload() {
  // the harness's shared modules, by the path the child's script will require them with
  // compiled whole here (V8 compiles a function when first called: in every child, else), the
  // pinned packages as usual (eagerly, a large one would cost its whole size in the zygote)
  const here = __dirname;
  v8.setFlagsFromString('--no-lazy');
  require(path.join(here, '_pinbench_channel.js'));
  require(path.join(here, '_pinbench_deprecations.js'));
  if (role === 'grader') precompile(path.join(here, '_pinbench_jest.js'));
  if (role === 'grader') ['expect', 'jest-mock'].forEach(load);
  v8.setFlagsFromString('--lazy');
  if (bare) return;
  // The pinned packages, as a Python warm server imports the pinned library: a program's (or a
  // test's) require finds them loaded. A package that starts a thread as it loads makes a
  // fork unsafe: the zygote then says so and is started again without them.
  const before = threads();
  pins().forEach(function (name) {
    // compiled whole when its entry file is small (lodash: a child calling `_.sum` compiles
    // nothing), lazily when large (typescript.js is 9 MB)
    let eager = false;
    try {
      const main = require.resolve(name, { paths: [path.join(envRoot, 'node_modules')] });
      eager = fs.statSync(main).size <= EAGER_BYTES;
    } catch (err) {
      eager = false;
    }
    v8.setFlagsFromString(eager ? '--no-lazy' : '--lazy');
    load(name);
  });
  v8.setFlagsFromString('--lazy');
  if (threads() !== before) {
    z.send(control, 'threads');
    z.exit(3);
  }
}

function freshRandom() {
  // Math.random's state was the zygote's: every child would draw the same numbers
  const seed = new Uint32Array(crypto.randomBytes(16).buffer.slice(0));
  const s = seed.some(Boolean) ? seed : Uint32Array.of(1, 2, 3, 4);
  function next() { // xoshiro128**
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }
  function rotl(x, k) { return (x << k) | (x >>> (32 - k)); }
  const random = { random() { return ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992; } }.random;
  Object.defineProperty(Math, 'random', { value: random, writable: true, configurable: true });
}

function asProcess(request) {
  // what a fresh `node SCRIPT ARGS` would show; it ends with _exit once its 'exit' listeners
  // have run (Node's own exit path would join threads this child does not have)
  Object.defineProperty(process, 'pid', { value: z.getpid(), enumerable: true, configurable: true });
  process.argv = [process.argv[0], request.script].concat(request.args);
  process.reallyExit = function (code) { z.exit(code === undefined ? 0 : Number(code) | 0); };
  const emit = process.emit;
  process.emit = function (event, code) {
    const result = emit.apply(this, arguments);
    if (event === 'exit') {
      const wanted = process.exitCode !== undefined ? process.exitCode : code;
      z.exit(wanted === undefined ? 0 : Number(wanted) | 0);
    }
    return result;
  };
  freshRandom();
}

function become(request, fds) {
  z.close(control);
  z.setns(fds[1], CLONE_NEWNS);
  z.setns(fds[2], CLONE_NEWIPC);
  z.unshareMounts();
  if (request.proc) z.mountProc();
  if (request.private) {
    const dir = request.private.dir;
    z.mountTmpfs(dir, 16 << 20);
    for (const name of Object.keys(request.private.files)) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, request.private.files[name], { mode: 0o600 });
      if (request.uid >= 0) fs.chownSync(file, request.uid, request.uid);
    }
    if (request.uid >= 0) fs.chownSync(dir, request.uid, request.uid);
  }
  // The standard streams in place; the script's own descriptors keep their numbers (the low
  // ones are the event loop's), which its arguments name as @0, @1, ...
  z.close(fds[1]);
  z.close(fds[2]);
  z.moveFds([[-1, 0], [fds[3], 1], [fds[4], 2]]);
  const own = fds.slice(5);
  request.args = request.args.map(function (arg) {
    const match = /^@(\d+)$/.exec(arg);
    return match ? String(own[Number(match[1])]) : arg;
  });
  process.chdir(request.cwd);
  z.confine(request.uid, request.limits, Buffer.from(request.seccomp || '', 'base64'));
}

function child(request, fds) {
  const reply = fds[0];
  try {
    become(request, fds);
    z.send(reply, 'ready');
    z.close(reply);
  } catch (err) {
    try {
      z.send(reply, JSON.stringify({ error: String(err && err.message) }));
    } catch (ignored) {
      // the runner is gone
    }
    z.exit(70);
  }
  asProcess(request);
  runScript(request.script);
}

let pidMax = 0;
function scatterPids() {
  // The program's zygote is pid 1 of the namespace its children get pids in, handed out in
  // order: an execution that forked until the last pid was some value would leave that value
  // (a message) in the next one's own pid. The next pid is drawn anew (as _runner.py does for
  // the server's namespace). The grader's zygote forks in the server's, which does that.
  if (role !== 'program') return;
  if (pidMax === 0) pidMax = Number(fs.readFileSync('/proc/sys/kernel/pid_max', 'utf8'));
  const high = Math.max(pidMax - 65536, 2000);
  const drawn = 1000 + (crypto.randomBytes(4).readUInt32LE(0) % (high - 1000));
  fs.writeFileSync('/proc/sys/kernel/ns_last_pid', String(drawn));
}

function serve() {
  for (;;) {
    const message = z.recv(control);
    if (message === null) z.exit(0); // the server closed the socket: shut down
    const fds = message[1];
    let request = null;
    try {
      request = JSON.parse(message[0]);
    } catch (err) {
      request = null;
    }
    if (request === null || fds.length < 5) {
      fds.forEach(z.close);
      continue;
    }
    scatterPids();
    const pid = z.fork(fds);
    if (pid === 0) return child(request, fds);
    fds.slice(1).forEach(z.close);
    try {
      z.recv(fds[0]); // `end`, or the runner's end of the socket closed
    } catch (err) {
      // the runner is gone: end the child all the same
    }
    const status = z.end(pid);
    try {
      z.send(fds[0], JSON.stringify({ status: status }));
    } catch (err) {
      // the runner is gone
    }
    z.close(fds[0]);
    tidy();
  }
}

// The young generation a child starts with is the zygote's: what is live there, every
// scavenge of the child copies again, and what the zygote left there is room the child does
// not have. The zygote starts its children with it empty: a full collection before the first
// fork (what loading left young goes old, where a child never collects), and a scavenge
// after an execution once its own requests have filled a little (mostly garbage: cheap), so
// a child's allocations fit and it rarely collects at all. Without it children cost twice as
// much after a few hundred executions (`bench/node.py`).
const YOUNG_BYTES = 256 << 10;
function collector() {
  // V8's `gc`, from a context of its own: the program's global never has it. The flag goes
  // off again where V8 allows (Node 12's checks it as `gc` runs): a context a program makes
  // with `vm` then has no `gc` either.
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc');
  if (Number(process.versions.node.split('.')[0]) >= 14) v8.setFlagsFromString('--no-expose-gc');
  return gc;
}
let collect = null; // the collector, from start() on
function young() {
  const spaces = v8.getHeapSpaceStatistics();
  for (let i = 0; i < spaces.length; i++) {
    if (spaces[i].space_name === 'new_space') return spaces[i].space_used_size;
  }
  return 0;
}
function tidy() {
  if (young() > YOUNG_BYTES) collect({ type: 'minor' });
}

z.subreaper();
scatterPids(); // a zygote that cannot draw its children's pids never says ready
preload();
// The ES module loader, and the lexer that finds a CommonJS module's names for it, start
// here: started in a child they wait on work for threads a forked process does not have.
const url = require('url');
let started = false;
function start() {
  if (started) return;
  started = true;
  collect = collector();
  collect(); // a full collection promotes whatever young object is live
  z.send(control, 'ready');
  serve();
}
import(url.pathToFileURL(path.join(__dirname, '_pinbench_warm.mjs')).href).then(start, start);
