'use strict';

const { CANDIDATE_DELIMITERS, NULL_TOKENS, BOOLEAN_TOKENS, getDialect } = require('./_generated_dialects');

class CsvParseError extends Error {
  constructor(message, line) {
    super(`${message} (line ${line})`);
    this.name = 'CsvParseError';
    this.line = line;
  }
}

/**
 * Guess the delimiter of a CSV document by counting candidate characters in its first line.
 *
 * @param {string} text - The raw CSV text.
 * @returns {string} The most frequent candidate delimiter, or "," if none appears.
 */
function detectDelimiter(text) {
  const firstLine = text.split(/\r?\n/, 1)[0] || '';
  let best = ',';
  let bestCount = 0;
  for (const candidate of CANDIDATE_DELIMITERS) {
    const count = firstLine.split(candidate).length - 1;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Convert a raw field string into a number, boolean, null or leave it as a string.
 *
 * @param {string} raw - The unquoted field text.
 * @returns {number|boolean|null|string} The coerced value.
 */
const coerceValue = (raw) => {
  if (NULL_TOKENS.includes(raw)) {
    return null;
  }
  if (BOOLEAN_TOKENS.hasOwnProperty(raw)) {
    return BOOLEAN_TOKENS[raw];
  }
  if (/^[+\-]?\d+(\.\d+)?$/.test(raw)) {
    return Number(raw);
  }
  return raw;
};

/**
 * Split CSV text into rows of raw string fields, honouring quoted fields,
 * escaped quotes ("") and newlines inside quotes.
 *
 * @param {string} text - The CSV document.
 * @param {{delimiter?: string, quote?: string}} [options] - Delimiter and quote characters.
 * @returns {string[][]} The rows, each an array of field strings.
 * @throws {CsvParseError} If a quoted field is not terminated before end of input.
 */
function tokenize(text, options = {}) {
  const delimiter = options.delimiter || ',';
  const quote = options.quote || '"';
  const rows = [];
  let row = [];
  let field = '';
  let inQuotes = false;
  let line = 1;
  let quoteStartLine = 1;

  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inQuotes) {
      if (ch === quote && text[i + 1] === quote) {
        field += quote;
        i++;
      } else if (ch === quote) {
        inQuotes = false;
      } else {
        if (ch === '\n') {
          line++;
        }
        field += ch;
      }
      continue;
    }
    switch (ch) {
      case quote:
        inQuotes = true;
        quoteStartLine = line;
        break;
      case delimiter:
        row.push(field);
        field = '';
        break;
      case '\r':
        if (text[i + 1] === '\n') {
          break;
        }
      case '\n':
        row.push(field);
        rows.push(row);
        row = [];
        field = '';
        line++;
        break;
      default:
        field += ch;
    }
  }
  if (inQuotes) {
    throw new CsvParseError('Unterminated quoted field', quoteStartLine);
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

function parseRows(text, options = {}) {
  const delimiter = options.delimiter || detectDelimiter(text);
  const rows = tokenize(text, { delimiter, quote: options.quote });
  if (options.coerce === false) {
    return rows;
  }
  return rows.map((row) => row.map(coerceValue));
}

/**
 * Parse a CSV document with a header row into an array of objects keyed by column name.
 *
 * @param {string} text - The CSV document.
 * @param {{delimiter?: string, dialect?: string, coerce?: boolean, strict?: boolean}} [options]
 *   Parsing options; `strict` makes ragged rows an error instead of padding them with null.
 * @returns {Object[]} One object per data row.
 * @throws {TypeError} If text is not a string.
 * @throws {CsvParseError} If `strict` is set and a row has the wrong number of fields.
 */
function parse(text, options = {}) {
  if (typeof text !== 'string') {
    throw new TypeError('parse() expects a string');
  }
  const dialect = options.dialect ? getDialect(options.dialect) : {};
  const delimiter = options.delimiter || dialect.delimiter;
  const rows = parseRows(text, { ...options, delimiter });
  if (rows.length === 0) {
    return [];
  }
  const header = rows[0].map(String);
  const records = [];
  rows.slice(1).forEach((row, index) => {
    if (options.strict && row.length !== header.length) {
      throw new CsvParseError(`Expected ${header.length} fields, got ${row.length}`, index + 2);
    }
    const record = {};
    header.forEach((name, col) => {
      record[name] = col < row.length ? row[col] : null;
    });
    records.push(record);
  });
  return records;
}

module.exports = {
  CsvParseError,
  detectDelimiter,
  coerceValue,
  tokenize,
  parseRows,
  parse,
};
