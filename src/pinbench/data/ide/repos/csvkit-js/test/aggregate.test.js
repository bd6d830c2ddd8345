const assert = require('assert');
const { Table, UnknownColumnError, AGGREGATORS } = require('../lib/aggregate');
const csvkit = require('../lib');

const CSV = [
  'region,product,units,price',
  'north,bolt,10,0.5',
  'south,bolt,4,0.5',
  'north,nut,30,0.1',
  'east,washer,7,0.05',
  'south,nut,6,0.1',
].join('\n');

describe('Table', function () {
  let table;

  beforeEach(function () {
    table = Table.fromCSV(CSV);
  });

  it('loads rows and columns from CSV', function () {
    assert.strictEqual(table.length, 5);
    assert.deepStrictEqual(table.columns, ['region', 'product', 'units', 'price']);
  });

  it('selects, filters and sorts', function () {
    const north = table.where({ region: 'north' }).select('product', 'units');
    assert.deepStrictEqual(north.rows, [{ product: 'bolt', units: 10 }, { product: 'nut', units: 30 }]);
    assert.strictEqual(table.where((r) => r.units > 6).length, 3);
    assert.deepStrictEqual(table.sortBy('units', 'desc').rows.map((r) => r.units), [30, 10, 7, 6, 4]);
    assert.throws(() => table.select('colour'), UnknownColumnError);
  });

  it('groups and sums', function () {
    const groups = table.groupBy('product');
    assert.deepStrictEqual(Object.keys(groups).sort(), ['bolt', 'nut', 'washer']);
    assert.strictEqual(groups.nut.sum('units'), 36);
    assert.strictEqual(table.sum('units'), 57);
  });

  it('summarizes per group with different aggregators', function () {
    assert.deepStrictEqual(table.summarize('region', 'units').rows, [
      { region: 'north', sum_units: 40 },
      { region: 'south', sum_units: 10 },
      { region: 'east', sum_units: 7 },
    ]);
    const maxes = table.summarize('product', 'units', 'max');
    assert.deepStrictEqual(maxes.columns, ['product', 'max_units']);
    assert.strictEqual(maxes.rows[0].max_units, 10);
    assert.throws(() => table.summarize('region', 'units', 'median'), RangeError);
  });

  it('paginates with lodash chunk semantics', function () {
    const pages = table.paginate(2);
    assert.deepStrictEqual(pages.map((p) => p.length), [2, 2, 1]);
    assert.throws(() => table.paginate(0), RangeError);
  });

  it('writes back to CSV', function () {
    const out = table.select('region', 'units').where({ region: 'east' }).toCSV();
    assert.strictEqual(out, 'region,units\neast,7\n');
  });

  it('exposes aggregators and the package entry point', function () {
    assert.strictEqual(AGGREGATORS.mean([{ v: 2 }, { v: 4 }], 'v'), 3);
    assert.strictEqual(AGGREGATORS.min([], 'v'), null);
    assert.strictEqual(csvkit.readTable(CSV).length, 5);
    assert.strictEqual(csvkit.DIALECTS.tsv.delimiter, '\t');
  });
});
