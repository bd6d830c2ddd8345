import { InvalidItemError, StockItem, isValidSku, normalizeSku, volumeLitres } from '../src/item';

const spec = {
  sku: 'hwd-0001',
  name: 'Hex bolt M6',
  category: 'hardware' as const,
  unitCost: 0.12,
  quantity: 120,
  dimensions: { widthCm: 1, heightCm: 1, depthCm: 4, weightKg: 0.01 },
};

describe('SKU helpers', () => {
  test('normalizes and validates SKUs', () => {
    expect(normalizeSku('  abc-1234 ')).toBe('ABC-1234');
    expect(isValidSku('abc-1234')).toBe(true);
    expect(isValidSku('AB-12')).toBe(false);
    expect(isValidSku('')).toBe(false);
  });

  test('computes volume in litres', () => {
    expect(volumeLitres({ widthCm: 10, heightCm: 10, depthCm: 20, weightKg: 1 })).toBe(2);
  });
});

describe('StockItem', () => {
  let item: StockItem;

  beforeEach(() => {
    item = new StockItem(spec);
  });

  it('applies category defaults and normalizes the SKU', () => {
    expect(item.sku).toBe('HWD-0001');
    expect(item.reorderLevel).toBe(50);
    expect(item.reorderQuantity).toBe(200);
    expect(item.quantity).toBe(120);
  });

  it('rejects invalid specs', () => {
    expect(() => new StockItem({ ...spec, sku: 'nope' })).toThrow(InvalidItemError);
    expect(() => new StockItem({ ...spec, unitCost: -1 })).toThrow(/unitCost/);
    expect(() => new StockItem({ ...spec, quantity: 1.5 })).toThrow(InvalidItemError);
  });

  it('adjusts quantity and guards against negatives', () => {
    expect(item.adjust(-100)).toBe(20);
    expect(item.needsReorder()).toBe(true);
    expect(() => item.adjust(-21)).toThrow(RangeError);
    expect(() => item.adjust(0.5)).toThrow(RangeError);
  });

  it('reports value, weight and a snapshot', () => {
    expect(item.stockValue()).toBeCloseTo(14.4);
    expect(item.shippingWeightKg(10)).toBeCloseTo(0.1);
    expect(item.snapshot()).toEqual({
      sku: 'HWD-0001',
      name: 'Hex bolt M6',
      quantity: 120,
      value: 14.4,
      needsReorder: false,
    });
  });

  it('round-trips through JSON', () => {
    const copy = StockItem.fromJSON(JSON.stringify(spec));
    expect(copy.snapshot()).toStrictEqual(item.snapshot());
    expect(() => StockItem.fromJSON('null')).toThrow(InvalidItemError);
  });
});
