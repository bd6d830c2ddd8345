import { OutOfStockError, UnknownSkuError, Warehouse } from '../src/warehouse';
import { StockItem } from '../src/item';

describe('Warehouse', () => {
  let wh: Warehouse;

  beforeEach(() => {
    wh = new Warehouse('Main');
    wh.add({ sku: 'HWD-0001', name: 'Hex bolt', category: 'hardware', unitCost: 0.1, quantity: 40 });
    wh.add({ sku: 'PNT-0007', name: 'White paint 5L', category: 'paint', unitCost: 18.5, quantity: 12 });
    wh.add({ sku: 'GDN-0100', name: 'Garden hose', category: 'garden', unitCost: 9.99, quantity: 3 });
  });

  test('adds new items and tops up existing ones', () => {
    expect(wh.size).toBe(3);
    const bolt = wh.add({ sku: 'hwd-0001', name: 'Hex bolt', category: 'hardware', unitCost: 0.1 }, 10);
    expect(bolt.quantity).toBe(50);
    expect(wh.size).toBe(3);
    expect(() => wh.add(bolt, -1)).toThrow(RangeError);
  });

  test('removes stock and throws OutOfStockError when short', () => {
    expect(wh.remove('pnt-0007', 2).quantity).toBe(10);
    expect(() => wh.remove('GDN-0100', 5)).toThrow(OutOfStockError);
    try {
      wh.remove('GDN-0100', 5);
    } catch (err) {
      expect(err).toBeInstanceOf(OutOfStockError);
      expect((err as OutOfStockError).available).toBe(3);
    }
    expect(() => wh.remove('XXX-9999', 1)).toThrow(UnknownSkuError);
  });

  test('finds items by SKU and category', () => {
    expect(wh.find('gdn-0100')?.name).toBe('Garden hose');
    expect(wh.find('ZZZ-0000')).toBeUndefined();
    expect(wh.get('PNT-0007').category).toBe('paint');
    expect(wh.findByCategory('hardware').map((i) => i.sku)).toEqual(['HWD-0001']);
  });

  test('suggests reorders sorted by shortfall', () => {
    const suggestions = wh.reorderSuggestions();
    expect(suggestions.map((s) => s.sku)).toEqual(['HWD-0001', 'GDN-0100']);
    expect(suggestions[0].suggested).toBe(210);
    expect(suggestions[1]).toEqual({ sku: 'GDN-0100', name: 'Garden hose', current: 3, suggested: 27 });
  });

  test('totals stock value', () => {
    expect(wh.totalValue()).toBeCloseTo(4 + 222 + 29.97);
  });

  test('enforces volume capacity', () => {
    const small = new Warehouse('Shed', 10);
    const box = new StockItem({
      sku: 'PLB-0001', name: 'Pipe', category: 'plumbing', unitCost: 2,
      dimensions: { widthCm: 10, heightCm: 10, depthCm: 10, weightKg: 1 },
    });
    small.add(box, 8);
    expect(small.usedVolume()).toBe(8);
    expect(() => small.add(box, 5)).toThrow(/over capacity/);
    expect(() => new Warehouse('Broken', 0)).toThrow(RangeError);
    expect(box.quantity).toBe(8);
  });

  test('transfers stock between warehouses', () => {
    const outlet = new Warehouse('Outlet');
    wh.transfer(outlet, 'PNT-0007', 5);
    wh.transfer(outlet, 'PNT-0007', 2);
    expect(wh.get('PNT-0007').quantity).toBe(5);
    expect(outlet.get('PNT-0007').quantity).toBe(7);
    expect(outlet.get('PNT-0007')).not.toBe(wh.get('PNT-0007'));
  });

  test('restock skips unknown SKUs', () => {
    const applied = wh.restock([
      { sku: 'GDN-0100', quantity: 20 },
      { sku: 'NOP-0000', quantity: 5 },
    ]);
    expect(applied).toBe(1);
    expect(wh.get('GDN-0100').quantity).toBe(23);
  });
});
