// Loaded by the Node zygote before it forks (_pinbench_zygote.js): a CommonJS module an ES module imports
// names from, so the ES module loader and its CommonJS export lexer are ready in every child.
exports.ready = true;
