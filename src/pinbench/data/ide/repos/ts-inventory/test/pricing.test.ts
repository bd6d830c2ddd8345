import { applyDiscount, applyTax, bulkDiscountFor, lineTotal, orderTotals, roundCurrency } from '../src/pricing';
import { taxRateFor, isCategory } from '../src/_generated_catalog';

describe('pricing helpers', () => {
  it('rounds to cents', () => {
    expect(roundCurrency(1.005)).toBe(1.01);
    expect(roundCurrency(2.345, 1)).toBe(2.3);
  });

  it('applies discounts within 0..100', () => {
    expect(applyDiscount(80, 25)).toBe(60);
    expect(() => applyDiscount(10, 120)).toThrow(RangeError);
    expect(() => applyDiscount(-1, 10)).toThrow('Price cannot be negative');
  });

  it('applies regional tax', () => {
    expect(applyTax(100, 'EU-DE')).toBe(119);
    expect(applyTax(100, 'EU-FR', 'reduced')).toBe(105.5);
    expect(taxRateFor('UK', 'zero')).toBe(0);
    expect(isCategory('paint')).toBe(true);
  });

  it('picks the highest bulk tier reached', () => {
    expect(bulkDiscountFor(5)).toBe(0);
    expect(bulkDiscountFor(50)).toBe(5);
    expect(bulkDiscountFor(1000)).toBe(12);
    expect(() => bulkDiscountFor(Number.NaN)).toThrow(TypeError);
  });

  it('computes line totals with and without bulk discount', () => {
    const line = { sku: 'HWD-0001', unitPrice: 2, quantity: 100 };
    expect(lineTotal(line)).toBe(184);
    expect(lineTotal(line, false)).toBe(200);
    expect(() => lineTotal({ ...line, quantity: -1 })).toThrow(RangeError);
  });
});

describe('orderTotals', () => {
  const lines = [
    { sku: 'HWD-0001', unitPrice: 1, quantity: 100 },
    { sku: 'PNT-0007', unitPrice: 20, quantity: 1, taxClass: 'reduced' as const },
  ];

  it('sums bulk discounts and tax per line', () => {
    const totals = orderTotals(lines, 'EU-DE');
    expect(totals.subtotal).toBe(120);
    expect(totals.discount).toBe(8);
    expect(totals.tax).toBeCloseTo(92 * 0.19 + 20 * 0.07, 2);
    expect(totals.total).toBeCloseTo(112 + totals.tax, 2);
  });

  it('applies a coupon before tax', () => {
    const totals = orderTotals(lines, 'UK', { couponPercent: 10, applyBulkDiscount: false });
    expect(totals.discount).toBe(12);
    expect(totals.tax).toBeCloseTo(90 * 0.2 + 18 * 0.05, 2);
    expect(orderTotals([], 'UK').total).toBe(0);
  });
});
