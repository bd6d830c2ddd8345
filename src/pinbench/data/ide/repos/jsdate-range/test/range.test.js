const { DateRange, InvalidRangeError, startOf, mergeRanges, findGaps } = require('../src/range');
const lib = require('../src');

const day = (d, h = 0, m = 0) => new Date(Date.UTC(2024, 0, d, h, m));

describe('DateRange', () => {
  let week;

  beforeEach(() => {
    week = new DateRange('2024-01-01', '2024-01-08');
  });

  it('rejects ranges that end before they start', () => {
    expect(() => new DateRange('2024-01-02', '2024-01-01')).toThrow(InvalidRangeError);
  });

  it('builds from a start and a duration', () => {
    const r = DateRange.fromDuration(day(1), '1h30m');
    expect(r.end.toISOString()).toBe('2024-01-01T01:30:00.000Z');
    expect(r.hours()).toBeCloseTo(1.5);
    expect(r.isEmpty()).toBe(false);
  });

  it('parses and prints ISO intervals', () => {
    const r = DateRange.parse('2024-01-01/2024-01-08');
    expect(r.equals(week)).toBe(true);
    expect(r.toString()).toBe('2024-01-01T00:00:00.000Z/2024-01-08T00:00:00.000Z');
    expect(() => DateRange.parse('2024-01-01')).toThrow(TypeError);
  });

  it('contains points with a half-open end', () => {
    expect(week.contains(day(1))).toBe(true);
    expect(week.contains(day(7, 23))).toBe(true);
    expect(week.contains(day(8))).toBe(false);
    expect(week.contains(new DateRange(day(2), day(3)))).toBe(true);
  });

  it('detects overlaps but not touching ranges', () => {
    expect(week.overlaps(new DateRange(day(7), day(9)))).toBe(true);
    expect(week.overlaps(new DateRange(day(8), day(9)))).toBe(false);
    expect(() => week.overlaps('2024-01-02')).toThrow(TypeError);
  });

  it('computes intersections', () => {
    const i = week.intersection(new DateRange(day(6), day(10)));
    expect(i.toString()).toBe('2024-01-06T00:00:00.000Z/2024-01-08T00:00:00.000Z');
    expect(week.intersection(new DateRange(day(9), day(10)))).toBeNull();
  });

  it('splits into calendar days', () => {
    const pieces = new DateRange(day(1, 18), day(3, 6)).splitByDay();
    expect(pieces).toHaveLength(3);
    expect(pieces[0].hours()).toBe(6);
    expect(pieces[2].hours()).toBe(6);
  });

  it('splits by a fixed step and shifts', () => {
    expect(week.split('2d').map((r) => r.duration() / 86400000)).toEqual([2, 2, 2, 1]);
    expect(() => week.split(0)).toThrow(RangeError);
    expect(week.shift('1d').start.toISOString()).toBe('2024-01-02T00:00:00.000Z');
  });
});

describe('startOf', () => {
  test('truncates to hour, day and week', () => {
    const t = new Date('2024-01-04T15:45:10Z'); // a Thursday
    expect(startOf(t, 'hour').toISOString()).toBe('2024-01-04T15:00:00.000Z');
    expect(startOf(t, 'day').toISOString()).toBe('2024-01-04T00:00:00.000Z');
    expect(startOf(t, 'week').toISOString()).toBe('2023-12-31T00:00:00.000Z');
    expect(() => startOf(t, 'month')).toThrow(RangeError);
  });
});

describe('mergeRanges / findGaps', () => {
  const busy = [
    new DateRange(day(1, 9), day(1, 10)),
    new DateRange(day(1, 13), day(1, 15)),
    new DateRange(day(1, 9, 30), day(1, 11)),
    new DateRange(day(1, 11), day(1, 12)),
  ];

  test('merges overlapping and touching ranges', () => {
    const merged = mergeRanges(busy);
    expect(merged.map((r) => r.hours())).toEqual([3, 2]);
    expect(merged[0].start.getTime()).toBe(day(1, 9).getTime());
  });

  test('finds free slots inside a window', () => {
    const gaps = findGaps(busy, new DateRange(day(1, 8), day(1, 17)));
    expect(gaps.map((r) => r.hours())).toEqual([1, 1, 2]);
  });

  test('index re-exports the public API', () => {
    expect(typeof lib.parseDuration).toBe('function');
    expect(lib.DateRange).toBe(DateRange);
    expect(lib.version).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
