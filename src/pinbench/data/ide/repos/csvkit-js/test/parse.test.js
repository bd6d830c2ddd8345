const assert = require('assert');
const { parse, parseRows, tokenize, detectDelimiter, coerceValue, CsvParseError } = require('../lib/parse');

describe('parse', function () {
  it('parses a header row into objects with coerced values', function () {
    const rows = parse('name,qty,active\nbolt,12,true\nnut,3.5,FALSE\n');
    assert.deepStrictEqual(rows, [
      { name: 'bolt', qty: 12, active: true },
      { name: 'nut', qty: 3.5, active: false },
    ]);
  });

  it('handles quoted fields with delimiters, quotes and newlines', function () {
    const rows = parse('id,note\n1,"a, b"\n2,"say ""hi"""\n3,"two\nlines"\n');
    assert.strictEqual(rows[0].note, 'a, b');
    assert.strictEqual(rows[1].note, 'say "hi"');
    assert.strictEqual(rows[2].note, 'two\nlines');
  });

  it('accepts CRLF and lone CR line endings', function () {
    assert.deepStrictEqual(parse('a,b\r\n1,2\r\n'), [{ a: 1, b: 2 }]);
    assert.deepStrictEqual(parse('a,b\r1,2'), [{ a: 1, b: 2 }]);
  });

  it('pads short rows with null unless strict', function () {
    assert.deepStrictEqual(parse('a,b,c\n1,2'), [{ a: 1, b: 2, c: null }]);
    assert.throws(() => parse('a,b,c\n1,2', { strict: true }), CsvParseError);
  });

  it('uses dialects and rejects non-strings', function () {
    assert.deepStrictEqual(parse('x;y\n1;2', { dialect: 'semicolon' }), [{ x: 1, y: 2 }]);
    assert.throws(() => parse(42), TypeError);
    assert.throws(() => parse('a', { dialect: 'cobol' }), RangeError);
  });
});

describe('tokenize / parseRows', function () {
  it('reports the line of an unterminated quote', function () {
    assert.throws(() => tokenize('a,b\n1,"oops\n'), (err) => {
      return err instanceof CsvParseError && err.line === 2;
    });
  });

  it('can skip coercion', function () {
    assert.deepStrictEqual(parseRows('a\tb\n007\tNA', { coerce: false }), [['a', 'b'], ['007', 'NA']]);
    assert.deepStrictEqual(parseRows('a\tb\n007\tNA'), [['a', 'b'], [7, null]]);
  });
});

describe('detectDelimiter / coerceValue', function () {
  it('picks the most frequent candidate', function () {
    assert.strictEqual(detectDelimiter('a;b;c\n1;2;3'), ';');
    assert.strictEqual(detectDelimiter('a\tb'), '\t');
    assert.strictEqual(detectDelimiter('single'), ',');
  });

  it('coerces numbers, booleans and null tokens', function () {
    assert.strictEqual(coerceValue('-4.25'), -4.25);
    assert.strictEqual(coerceValue('TRUE'), true);
    assert.strictEqual(coerceValue('N/A'), null);
    assert.strictEqual(coerceValue('12abc'), '12abc');
  });
});
