'use strict';
// The program's process under trusted grading, on the program's own Node (12 and later):
// loads the program, then answers the grader's requests about its values through the channel
// (_pinbench_channel.js) until the grader is done. Nothing here is trusted: the grader decodes
// what comes from this process as data.
//
//   node _pinbench_program.js PROGRAM DATA_FD BELL_FD [DEPRECATIONS_FD]
//
// With DEPRECATIONS_FD, the deprecation signals raised under the program's code are written
// there as they come, one JSON object per line (_pinbench_deprecations.js), and a line
// {"tampered": true} once the recorder has been replaced.
const fs = require('fs');
const Module = require('module');
const url = require('url');
const vm = require('vm');
const channelModule = require('./_pinbench_channel.js');

const argv = process.argv.slice(2);
const programPath = argv[0];
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const create = Object.create;
const deprecationsFd = argv[3] === undefined ? null : Number(argv[3]);
let deprecations = null;
let toldTampered = false;
function tell(payload) {
  try {
    writeSync(deprecationsFd, stringify(payload) + '\n');
  } catch (err) {
    // the runner stopped reading: nothing more to tell
  }
}
if (deprecationsFd !== null) {
  deprecations = require('./_pinbench_deprecations.js').install(programPath, tell);
}
function checkTampered() {
  if (deprecations !== null && !toldTampered && deprecations.check()) {
    toldTampered = true;
    const payload = create(null); // no Object.prototype.toJSON of the program's applies
    payload.tampered = true;
    tell(payload);
  }
}

function syntaxError(source) {
  try {
    new vm.Script(Module.wrap(source.replace(/^#!.*/, '')), { filename: programPath });
    return null;
  } catch (err) {
    return err instanceof SyntaxError ? err : null;
  }
}

async function load() {
  if (!programPath.endsWith('.mjs')) {
    const invalid = syntaxError(fs.readFileSync(programPath, 'utf8'));
    if (invalid) {
      invalid.code = 'PINBENCH_SYNTAX';
      throw invalid;
    }
    return require(programPath);
  }
  try {
    return await import(url.pathToFileURL(programPath).href);
  } catch (err) {
    if (err instanceof SyntaxError) err.code = 'PINBENCH_SYNTAX';
    throw err;
  }
}

process.on('unhandledRejection', function () {});
load().then(
  function (exports) { serve(exports, null); },
  function (err) { serve(undefined, err); }
);

function serve(exports, error) {
  const channel = new channelModule.Channel(Number(argv[1]), Number(argv[2]), function (op, frame, ch) {
    try {
      if (op === 'module') {
        if (error !== null) throw error;
        return exports;
      }
      return channelModule.serveValues(op, frame, ch);
    } finally {
      checkTampered(); // the program's code runs while a request waits for its answer
    }
  });
  channel.bell.on('close', function () { process.exit(0); }); // the grader is done
}
