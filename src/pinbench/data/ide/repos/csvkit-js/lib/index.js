'use strict';

const { parse, parseRows, detectDelimiter, CsvParseError } = require('./parse');
const { stringify, stringifyBatches, escapeField } = require('./write');
const { Table, UnknownColumnError } = require('./aggregate');
const { DIALECTS } = require('./_generated_dialects');

module.exports = {
  parse,
  parseRows,
  detectDelimiter,
  stringify,
  stringifyBatches,
  escapeField,
  Table,
  DIALECTS,
  CsvParseError,
  UnknownColumnError,
};

module.exports.readTable = (text, options) => Table.fromCSV(text, options);
