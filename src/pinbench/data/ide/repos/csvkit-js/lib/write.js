'use strict';

const path = require('path');
const _ = require('lodash');
const { getDialect } = require('./_generated_dialects');

/**
 * Quote a single value for CSV output if it contains the delimiter, a quote or a newline.
 * Embedded quote characters are doubled.
 *
 * @param {*} value - The value to write; null and undefined become an empty field.
 * @param {string} [delimiter=","] - The field delimiter in use.
 * @param {string} [quote='"'] - The quote character in use.
 * @returns {string} The field text, quoted when necessary.
 */
function escapeField(value, delimiter = ',', quote = '"') {
  if (value === null || value === undefined) {
    return '';
  }
  const text = value instanceof Date ? value.toISOString() : String(value);
  const needsQuotes = text.includes(delimiter) || text.includes(quote) ||
    text.includes('\n') || text.includes('\r') || text !== text.trim();
  if (!needsQuotes) {
    return text;
  }
  return quote + text.split(quote).join(quote + quote) + quote;
}

const formatRow = (values, delimiter = ',', quote = '"') => {
  if (!Array.isArray(values)) {
    throw new TypeError('formatRow() expects an array of values');
  }
  return values.map((v) => escapeField(v, delimiter, quote)).join(delimiter);
};

function collectColumns(records) {
  const seen = [];
  for (const record of records) {
    for (const key of Object.keys(record)) {
      if (!seen.includes(key)) {
        seen.push(key);
      }
    }
  }
  return seen;
}

/**
 * Serialise an array of objects (or arrays) to CSV text.
 *
 * @param {Array<Object|Array>} records - The rows to write.
 * @param {{columns?: string[], dialect?: string, header?: boolean}} [options] - Column order,
 *   dialect name (see `DIALECTS`) and whether to emit a header row.
 * @returns {string} The CSV document, terminated by the dialect's line terminator.
 * @throws {TypeError} If records is not an array.
 */
function stringify(records, options = {}) {
  if (!Array.isArray(records)) {
    throw new TypeError('stringify() expects an array');
  }
  const dialect = getDialect(options.dialect || 'unix');
  const { delimiter, quote, lineTerminator } = dialect;
  const lines = [];
  if (records.length > 0 && Array.isArray(records[0])) {
    records.forEach((row) => lines.push(formatRow(row, delimiter, quote)));
  } else {
    const columns = options.columns || collectColumns(records);
    const header = options.header !== undefined ? options.header : dialect.header;
    if (header && columns.length > 0) {
      lines.push(formatRow(columns, delimiter, quote));
    }
    for (const record of records) {
      lines.push(formatRow(columns.map((c) => record[c]), delimiter, quote));
    }
  }
  return lines.length > 0 ? lines.join(lineTerminator) + lineTerminator : '';
}

const stringifyBatches = (records, batchSize, options = {}) => {
  const columns = options.columns || collectColumns(records);
  const batches = _.chunk(records, batchSize);
  const total = records.length;
  return batches.map((batch, index) => {
    return stringify(batch, { ...options, columns, header: index === 0 });
  });
};

module.exports = {
  escapeField,
  formatRow,
  collectColumns,
  stringify,
  stringifyBatches,
};
