const assert = require('assert');
const { escapeField, formatRow, collectColumns, stringify, stringifyBatches } = require('../lib/write');
const { parse } = require('../lib/parse');

describe('escapeField / formatRow', function () {
  it('quotes only when needed', function () {
    assert.strictEqual(escapeField('plain'), 'plain');
    assert.strictEqual(escapeField('a,b'), '"a,b"');
    assert.strictEqual(escapeField('say "hi"'), '"say ""hi"""');
    assert.strictEqual(escapeField(null), '');
    assert.strictEqual(escapeField(new Date(0)), '1970-01-01T00:00:00.000Z');
  });

  it('formats a row and validates input', function () {
    assert.strictEqual(formatRow(['a', 1, null, 'x\ty'], '\t'), 'a\t1\t\t"x\ty"');
    assert.throws(() => formatRow('a,b'), TypeError);
  });
});

describe('stringify', function () {
  const records = [{ id: 1, name: 'bolt' }, { id: 2, name: 'nut, hex', size: 'M6' }];

  it('collects columns across all records', function () {
    assert.deepStrictEqual(collectColumns(records), ['id', 'name', 'size']);
  });

  it('writes a header and round-trips through parse', function () {
    const text = stringify(records);
    assert.strictEqual(text, 'id,name,size\n1,bolt,\n2,"nut, hex",M6\n');
    assert.deepStrictEqual(parse(text)[1], { id: 2, name: 'nut, hex', size: 'M6' });
  });

  it('supports dialects, explicit columns and array rows', function () {
    assert.strictEqual(stringify(records, { dialect: 'excel', columns: ['name'] }), 'name\r\nbolt\r\n"nut, hex"\r\n');
    assert.strictEqual(stringify([[1, 2], [3, 4]], { dialect: 'tsv' }), '1\t2\n3\t4\n');
    assert.strictEqual(stringify([]), '');
    assert.throws(() => stringify('nope'), TypeError);
  });

  it('splits output into batches with a single header', function () {
    const batches = stringifyBatches(records.concat([{ id: 3, name: 'washer' }]), 2);
    assert.strictEqual(batches.length, 2);
    assert.ok(batches[0].startsWith('id,name,size\n'));
    assert.strictEqual(batches[1], '3,washer,\n');
  });
});
