'use strict';

const { UNIT_MS, UNIT_ALIASES, FORMAT_ORDER, unitLabel } = require('./_generated_units');

const TOKEN_RE = /(\d+(?:\.\d+)?)\s*([a-zA-Z]+)/g;

class DurationParseError extends Error {
  constructor(input, reason) {
    super(`Cannot parse duration "${input}": ${reason}`);
    this.name = 'DurationParseError';
    this.input = input;
  }
}

/**
 * Resolve a unit token such as "h", "hrs" or "minutes" to its canonical unit key.
 *
 * @param {string} token - The unit exactly as written in the duration string.
 * @returns {string} The canonical unit key ("ms", "s", "m", "h", "d" or "w").
 * @throws {DurationParseError} If the token is not a known unit or alias.
 */
function normalizeUnit(token) {
  const lower = token.toLowerCase();
  if (UNIT_MS.hasOwnProperty(lower)) {
    return lower;
  }
  const alias = UNIT_ALIASES[lower];
  if (alias === undefined) {
    throw new DurationParseError(token, `unknown unit "${token}"`);
  }
  return alias;
}

/**
 * Parse a compact duration such as "1h30m", "2d 4h" or "90 minutes" into milliseconds.
 * Plain non-negative numbers are treated as milliseconds and returned unchanged.
 *
 * @param {string|number} input - The duration to parse.
 * @returns {number} The duration in milliseconds.
 * @throws {TypeError} If the input is neither a string nor a number.
 * @throws {RangeError} If a numeric input is negative or not finite.
 * @throws {DurationParseError} If the string is empty or contains unparseable text.
 */
function parseDuration(input) {
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) {
      throw new RangeError(`Duration must be a non-negative finite number, got ${input}`);
    }
    return input;
  }
  if (typeof input !== 'string') {
    throw new TypeError(`Duration must be a string or a number, got ${typeof input}`);
  }
  const trimmed = input.trim();
  if (trimmed === '') {
    throw new DurationParseError(input, 'empty string');
  }
  const leftover = trimmed.replace(TOKEN_RE, '').trim();
  if (leftover !== '') {
    throw new DurationParseError(input, `unexpected "${leftover}"`);
  }
  let total = 0;
  for (const match of trimmed.matchAll(TOKEN_RE)) {
    const unit = normalizeUnit(match[2]);
    total += parseFloat(match[1]) * UNIT_MS[unit];
  }
  return Math.round(total);
}

function tryParseDuration(input, fallback = null) {
  try {
    return parseDuration(input);
  } catch (e) {}
  return fallback;
}

/**
 * Format a number of milliseconds as a compact duration string, largest unit first.
 *
 * @param {number} ms - The duration in milliseconds.
 * @param {{units?: string[], separator?: string}} [options] - Units to use (largest first)
 *   and the separator placed between parts.
 * @returns {string} A string such as "1h30m"; zero durations render as "0" plus the smallest unit.
 * @throws {RangeError} If ms is negative or not finite.
 */
const formatDuration = (ms, options = {}) => {
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RangeError(`Cannot format duration ${ms}`);
  }
  const units = options.units || FORMAT_ORDER;
  const separator = options.separator !== undefined ? options.separator : '';
  let remaining = Math.round(ms);
  const parts = [];
  for (const unit of units) {
    const size = UNIT_MS[unit];
    const count = Math.floor(remaining / size);
    if (count > 0) {
      parts.push(`${count}${unit}`);
      remaining -= count * size;
    }
  }
  return parts.length > 0 ? parts.join(separator) : `0${units[units.length - 1]}`;
};

const humanizeDuration = (ms) => {
  const parts = [];
  let remaining = Math.round(ms);
  for (const unit of FORMAT_ORDER) {
    const count = Math.floor(remaining / UNIT_MS[unit]);
    if (count > 0) {
      parts.push(`${count} ${unitLabel(unit, count)}`);
      remaining -= count * UNIT_MS[unit];
    }
  }
  return parts.length > 0 ? parts.join(', ') : 'no time';
};

function parseIsoDate(value) {
  const m = /^(\d{4})\-(\d{2})-(\d{2})$/.exec(value);
  if (m) {
    return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  }
  return new Date(value);
}

/**
 * Coerce a Date, epoch-milliseconds number or ISO-8601 string into a fresh Date.
 * Date-only strings ("2024-03-01") are interpreted as UTC midnight.
 *
 * @param {Date|number|string} value - The value to convert.
 * @returns {Date} A new Date instance (never the one passed in).
 * @throws {TypeError} If the value has an unsupported type or describes an invalid date.
 */
function toDate(value) {
  let result;
  if (value instanceof Date) {
    result = new Date(value.getTime());
  } else if (typeof value === 'number') {
    result = new Date(value);
  } else if (typeof value === 'string') {
    result = parseIsoDate(value.trim());
  } else {
    throw new TypeError(`Cannot convert ${typeof value} to a Date`);
  }
  if (Number.isNaN(result.getTime())) {
    throw new TypeError(`Invalid date: ${String(value)}`);
  }
  return result;
}

function addDuration(date, duration) {
  const base = toDate(date);
  const ms = parseDuration(duration);
  return new Date(base.getTime() + ms);
}

function subtractDuration(date, duration) {
  const base = toDate(date);
  const ms = parseDuration(duration);
  return new Date(base.getTime() - ms);
}

module.exports = {
  DurationParseError,
  normalizeUnit,
  parseDuration,
  tryParseDuration,
  formatDuration,
  humanizeDuration,
  toDate,
  addDuration,
  subtractDuration,
};
