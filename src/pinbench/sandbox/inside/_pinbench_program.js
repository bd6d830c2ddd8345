'use strict';
// The program's process under trusted grading, on the program's own Node (12 and later):
// loads the program, then answers the grader's requests about its values through the channel
// (_pinbench_channel.js) until the grader is done. Nothing here is trusted: the grader decodes
// what comes from this process as data.
//
//   node _pinbench_program.js PROGRAM DATA_FD BELL_FD
const fs = require('fs');
const Module = require('module');
const url = require('url');
const vm = require('vm');
const channelModule = require('./_pinbench_channel.js');

const argv = process.argv.slice(2);
const programPath = argv[0];

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
    if (op === 'module') {
      if (error !== null) throw error;
      return exports;
    }
    return channelModule.serveValues(op, frame, ch);
  });
  channel.bell.on('close', function () { process.exit(0); }); // the grader is done
}
