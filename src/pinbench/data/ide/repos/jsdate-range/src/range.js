'use strict';

const util = require('util');
const { toDate, parseDuration } = require('./duration');
const { MS_PER_DAY, MS_PER_HOUR } = require('./_generated_units');

class InvalidRangeError extends RangeError {
  constructor(start, end) {
    super(`Range end ${end.toISOString()} is before start ${start.toISOString()}`);
    this.name = 'InvalidRangeError';
    this.start = start;
    this.end = end;
  }
}

/**
 * Truncate a date to the start of a calendar unit, in UTC.
 * Weeks start on Sunday.
 *
 * @param {Date|number|string} date - The date to truncate.
 * @param {'hour'|'day'|'week'} unit - The calendar unit to truncate to.
 * @returns {Date} A new Date at the start of the unit containing `date`.
 * @throws {RangeError} If the unit is not one of "hour", "day" or "week".
 */
function startOf(date, unit) {
  const d = toDate(date);
  switch (unit) {
    case 'week':
      d.setUTCDate(d.getUTCDate() - d.getUTCDay());
    case 'day':
      d.setUTCHours(0, 0, 0, 0);
      break;
    case 'hour':
      d.setUTCMinutes(0, 0, 0);
      break;
    default:
      throw new RangeError(`Unsupported unit "${unit}"`);
  }
  return d;
}

class DateRange {
  /**
   * Create a half-open range [start, end).
   *
   * @param {Date|number|string} start - Inclusive start of the range.
   * @param {Date|number|string} end - Exclusive end of the range.
   * @throws {InvalidRangeError} If end is before start.
   */
  constructor(start, end) {
    const s = toDate(start);
    const e = toDate(end);
    if (e.getTime() < s.getTime()) {
      throw new InvalidRangeError(s, e);
    }
    this.start = s;
    this.end = e;
  }

  static fromDuration(start, duration) {
    const s = toDate(start);
    const ms = parseDuration(duration);
    return new DateRange(s, new Date(s.getTime() + ms));
  }

  /**
   * Parse an ISO-8601 interval written as "start/end".
   *
   * @param {string} text - The interval, e.g. "2024-01-01/2024-01-08".
   * @returns {DateRange} The parsed range.
   * @throws {TypeError} If the text does not contain exactly one "/" separator.
   */
  static parse(text) {
    const parts = String(text).split('/');
    if (parts.length !== 2) {
      throw new TypeError(`Expected "start/end", got "${text}"`);
    }
    return new DateRange(parts[0], parts[1]);
  }

  duration() {
    return this.end.getTime() - this.start.getTime();
  }

  isEmpty() {
    return this.duration() === 0;
  }

  /**
   * Check whether a date, or a whole other range, lies inside this range.
   *
   * @param {Date|number|string|DateRange} value - A point in time or a DateRange.
   * @returns {boolean} True when the point is in [start, end) or the range is fully enclosed.
   */
  contains(value) {
    if (value instanceof DateRange) {
      return value.start.getTime() >= this.start.getTime() &&
        value.end.getTime() <= this.end.getTime();
    }
    const t = toDate(value).getTime();
    return t >= this.start.getTime() && t < this.end.getTime();
  }

  /**
   * Check whether this range shares any instant with another range.
   * Ranges that merely touch (one ends where the other starts) do not overlap.
   *
   * @param {DateRange} other - The range to compare against.
   * @returns {boolean} True if the ranges overlap.
   * @throws {TypeError} If `other` is not a DateRange.
   */
  overlaps(other) {
    if (!(other instanceof DateRange)) {
      throw new TypeError('overlaps() expects a DateRange');
    }
    return this.start.getTime() < other.end.getTime() &&
      other.start.getTime() < this.end.getTime();
  }

  intersection(other) {
    if (!this.overlaps(other)) {
      return null;
    }
    const start = Math.max(this.start.getTime(), other.start.getTime());
    const end = Math.min(this.end.getTime(), other.end.getTime());
    return new DateRange(start, end);
  }

  /**
   * Split the range into consecutive pieces at UTC midnight boundaries.
   *
   * @returns {DateRange[]} One range per calendar day touched; the first and last may be partial.
   */
  splitByDay() {
    const pieces = [];
    let cursor = this.start;
    while (cursor.getTime() < this.end.getTime()) {
      const nextDay = new Date(startOf(cursor, 'day').getTime() + MS_PER_DAY);
      const pieceEnd = nextDay.getTime() < this.end.getTime() ? nextDay : this.end;
      pieces.push(new DateRange(cursor, pieceEnd));
      cursor = pieceEnd;
    }
    return pieces;
  }

  split(step) {
    const stepMs = parseDuration(step);
    if (stepMs <= 0) {
      throw new RangeError('split() step must be greater than zero');
    }
    const pieces = [];
    for (let t = this.start.getTime(); t < this.end.getTime(); t += stepMs) {
      pieces.push(new DateRange(t, Math.min(t + stepMs, this.end.getTime())));
    }
    return pieces;
  }

  shift(duration) {
    const ms = parseDuration(duration);
    return new DateRange(this.start.getTime() + ms, this.end.getTime() + ms);
  }

  hours() {
    return this.duration() / MS_PER_HOUR;
  }

  equals(other) {
    return other instanceof DateRange &&
      this.start.getTime() === other.start.getTime() &&
      this.end.getTime() === other.end.getTime();
  }

  toString() {
    return `${this.start.toISOString()}/${this.end.toISOString()}`;
  }
}

/**
 * Merge overlapping or touching ranges into the smallest set of disjoint ranges.
 *
 * @param {DateRange[]} ranges - Ranges in any order; the array is not modified.
 * @returns {DateRange[]} Disjoint ranges sorted by start.
 */
const mergeRanges = (ranges) => {
  const sorted = [...ranges].sort((a, b) => a.start.getTime() - b.start.getTime());
  const merged = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.start.getTime() <= last.end.getTime()) {
      if (range.end.getTime() > last.end.getTime()) {
        merged[merged.length - 1] = new DateRange(last.start, range.end);
      }
    } else {
      merged.push(range);
    }
  }
  return merged;
};

const findGaps = (ranges, within) => {
  const gaps = [];
  let cursor = within.start.getTime();
  for (const busy of mergeRanges(ranges)) {
    const clipped = busy.intersection(within);
    if (!clipped) {
      continue;
    }
    if (clipped.start.getTime() > cursor) {
      gaps.push(new DateRange(cursor, clipped.start));
    }
    cursor = Math.max(cursor, clipped.end.getTime());
  }
  if (cursor < within.end.getTime()) {
    gaps.push(new DateRange(cursor, within.end));
  }
  return gaps;
};

module.exports = {
  InvalidRangeError,
  DateRange,
  startOf,
  mergeRanges,
  findGaps,
};
