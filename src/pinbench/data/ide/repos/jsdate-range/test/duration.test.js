const {
  DurationParseError,
  normalizeUnit,
  parseDuration,
  tryParseDuration,
  formatDuration,
  humanizeDuration,
  toDate,
  addDuration,
  subtractDuration,
} = require('../src/duration');

describe('parseDuration', () => {
  it('parses compact multi-unit strings', () => {
    expect(parseDuration('1h30m')).toBe(5400000);
    expect(parseDuration('2d 4h')).toBe(2 * 86400000 + 4 * 3600000);
  });

  it('accepts long unit names and decimals', () => {
    expect(parseDuration('90 minutes')).toBe(5400000);
    expect(parseDuration('1.5h')).toBe(5400000);
  });

  it('returns numbers unchanged', () => {
    expect(parseDuration(250)).toBe(250);
  });

  it('rejects garbage and unknown units', () => {
    expect(() => parseDuration('1h and a bit')).toThrow(DurationParseError);
    expect(() => parseDuration('3 fortnights')).toThrow(/unknown unit/);
    expect(() => parseDuration('')).toThrow(DurationParseError);
  });

  it('rejects negative numbers and non-strings', () => {
    expect(() => parseDuration(-5)).toThrow(RangeError);
    expect(() => parseDuration({})).toThrow(TypeError);
  });
});

describe('normalizeUnit', () => {
  test('maps aliases to canonical keys', () => {
    expect(normalizeUnit('HRS')).toBe('h');
    expect(normalizeUnit('s')).toBe('s');
    expect(normalizeUnit('weeks')).toBe('w');
  });
});

describe('tryParseDuration', () => {
  test('returns the fallback instead of throwing', () => {
    expect(tryParseDuration('5m')).toBe(300000);
    expect(tryParseDuration('nope')).toBeNull();
    expect(tryParseDuration('nope', 0)).toBe(0);
  });
});

describe('formatDuration / humanizeDuration', () => {
  it('formats largest unit first', () => {
    expect(formatDuration(5400000)).toBe('1h30m');
    expect(formatDuration(90061001, { separator: ' ' })).toBe('1d 1h 1m 1s 1ms');
  });

  it('handles zero and custom units', () => {
    expect(formatDuration(0)).toBe('0ms');
    expect(formatDuration(7200000, { units: ['m'] })).toBe('120m');
    expect(() => formatDuration(-1)).toThrow(RangeError);
  });

  it('round-trips with parseDuration', () => {
    const ms = parseDuration('3d 2h 15m');
    expect(parseDuration(formatDuration(ms))).toBe(ms);
  });

  it('humanizes with pluralised labels', () => {
    expect(humanizeDuration(3660000)).toBe('1 hour, 1 minute');
    expect(humanizeDuration(7200000)).toBe('2 hours');
    expect(humanizeDuration(0)).toBe('no time');
  });
});

describe('toDate and arithmetic', () => {
  it('treats date-only strings as UTC midnight', () => {
    expect(toDate('2024-03-01').toISOString()).toBe('2024-03-01T00:00:00.000Z');
  });

  it('copies Date instances and rejects invalid input', () => {
    const original = new Date(0);
    const copy = toDate(original);
    expect(copy).not.toBe(original);
    expect(copy.getTime()).toBe(0);
    expect(() => toDate('not a date')).toThrow(TypeError);
    expect(() => toDate(null)).toThrow(TypeError);
  });

  it('adds and subtracts durations', () => {
    expect(addDuration('2024-01-01', '1d12h').toISOString()).toBe('2024-01-02T12:00:00.000Z');
    expect(subtractDuration('2024-01-01', '30m').toISOString()).toBe('2023-12-31T23:30:00.000Z');
  });
});
