'use strict';

const _ = require('lodash');
const { parse } = require('./parse');
const { stringify } = require('./write');

class UnknownColumnError extends Error {
  constructor(column, available) {
    super(`Unknown column "${column}"; available: ${available.join(', ')}`);
    this.name = 'UnknownColumnError';
    this.column = column;
  }
}

const AGGREGATORS = {
  sum: (rows, col) => _.sumBy(rows, col),
  mean: (rows, col) => (rows.length ? _.sumBy(rows, col) / rows.length : 0),
  min: (rows, col) => _.get(_.minBy(rows, col), col, null),
  max: (rows, col) => _.get(_.maxBy(rows, col), col, null),
  count: (rows) => rows.length,
};

class Table {
  constructor(rows, columns) {
    this.rows = rows.slice();
    this.columns = columns || (rows.length ? Object.keys(rows[0]) : []);
  }

  /**
   * Build a Table from CSV text with a header row.
   *
   * @param {string} text - The CSV document.
   * @param {Object} [options] - Options forwarded to `parse()`.
   * @returns {Table} A new table whose columns follow the header order.
   */
  static fromCSV(text, options) {
    const rows = parse(text, options);
    const header = text.split(/\r?\n/, 1)[0];
    const columns = rows.length ? Object.keys(rows[0]) : header.split(',');
    return new Table(rows, columns);
  }

  get length() {
    return this.rows.length;
  }

  assertColumn(column) {
    if (!this.columns.includes(column)) {
      throw new UnknownColumnError(column, this.columns);
    }
    return column;
  }

  /**
   * Keep only the given columns, in the given order.
   *
   * @param {...string} columns - Column names to keep.
   * @returns {Table} A new table with the projected rows.
   * @throws {UnknownColumnError} If any column does not exist.
   */
  select(...columns) {
    columns.forEach((c) => this.assertColumn(c));
    const rows = this.rows.map((row) => _.pick(row, columns));
    return new Table(rows, columns);
  }

  where(predicate) {
    if (typeof predicate === 'function') {
      return new Table(this.rows.filter(predicate), this.columns);
    }
    const matcher = _.matches(predicate);
    return new Table(this.rows.filter(matcher), this.columns);
  }

  sortBy(column, direction = 'asc') {
    this.assertColumn(column);
    const sorted = _.sortBy(this.rows, column);
    if (direction === 'desc') {
      sorted.reverse();
    }
    return new Table(sorted, this.columns);
  }

  /**
   * Group rows by the value of a column.
   *
   * @param {string} column - The column to group on.
   * @returns {Object<string, Table>} One sub-table per distinct value, keyed by that value.
   * @throws {UnknownColumnError} If the column does not exist.
   */
  groupBy(column) {
    this.assertColumn(column);
    const groups = _.groupBy(this.rows, column);
    return _.mapValues(groups, (rows) => new Table(rows, this.columns));
  }

  sum(column) {
    this.assertColumn(column);
    return _.sumBy(this.rows, (row) => (typeof row[column] === 'number' ? row[column] : 0));
  }

  /**
   * Aggregate a numeric column per group, like `SELECT key, agg(value) ... GROUP BY key`.
   *
   * @param {string} keyColumn - The column to group on.
   * @param {string} valueColumn - The numeric column to aggregate.
   * @param {'sum'|'mean'|'min'|'max'|'count'} [fn='sum'] - The aggregate function.
   * @returns {Table} A table with columns [keyColumn, `${fn}_${valueColumn}`].
   * @throws {RangeError} If `fn` is not a known aggregator.
   * @throws {UnknownColumnError} If either column does not exist.
   */
  summarize(keyColumn, valueColumn, fn = 'sum') {
    const aggregate = AGGREGATORS[fn];
    if (!aggregate) {
      throw new RangeError(`Unknown aggregate "${fn}"`);
    }
    this.assertColumn(valueColumn);
    const outColumn = `${fn}_${valueColumn}`;
    const rows = _.map(this.groupBy(keyColumn), (group) => {
      return { [keyColumn]: group.rows[0][keyColumn], [outColumn]: aggregate(group.rows, valueColumn) };
    });
    return new Table(rows, [keyColumn, outColumn]);
  }

  paginate(pageSize) {
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new RangeError('pageSize must be a positive integer');
    }
    return _.chunk(this.rows, pageSize).map((rows) => new Table(rows, this.columns));
  }

  toCSV(options = {}) {
    return stringify(this.rows, { columns: this.columns, ...options });
  }
}

module.exports = {
  Table,
  UnknownColumnError,
  AGGREGATORS,
};
