import { BULK_TIERS, Region, TaxClass, taxRateFor } from './_generated_catalog';

export interface OrderLine {
  sku: string;
  unitPrice: number;
  quantity: number;
  taxClass?: TaxClass;
}

export interface OrderTotals {
  subtotal: number;
  discount: number;
  tax: number;
  total: number;
}

export function roundCurrency(amount: number, decimals = 2): number {
  const factor = 10 ** decimals;
  return Math.round((amount + Number.EPSILON) * factor) / factor;
}

/**
 * Reduce a price by a percentage.
 *
 * @param price - The original price.
 * @param percent - Discount between 0 and 100 inclusive.
 * @returns The discounted price, rounded to cents.
 * @throws {RangeError} If percent is outside 0..100 or the price is negative.
 */
export function applyDiscount(price: number, percent: number): number {
  if (percent < 0 || percent > 100) {
    throw new RangeError(`Discount must be between 0 and 100, got ${percent}`);
  }
  if (price < 0) {
    throw new RangeError('Price cannot be negative');
  }
  return roundCurrency(price * (1 - percent / 100));
}

/**
 * Add sales tax for a region and tax class.
 *
 * @param amount - The net amount.
 * @param region - The region whose tax table applies.
 * @param taxClass - The item's tax class; defaults to "standard".
 * @returns The gross amount, rounded to cents.
 */
export const applyTax = (amount: number, region: Region, taxClass: TaxClass = 'standard'): number => {
  const rate = taxRateFor(region, taxClass);
  const gross = amount * (1 + rate);
  return roundCurrency(gross);
};

export function bulkDiscountFor(quantity: number): number {
  if (!Number.isFinite(quantity)) {
    throw new TypeError('quantity must be a finite number');
  }
  if (quantity < 0) {
    return null;
  }
  let percent = 0;
  for (const tier of BULK_TIERS) {
    if (quantity >= tier.minQuantity) {
      percent = tier.percent;
    }
  }
  return percent;
}

export const lineTotal = (line: OrderLine, withBulkDiscount = true): number => {
  if (line.quantity < 0 || !Number.isInteger(line.quantity)) {
    throw new RangeError(`${line.sku}: quantity must be a non-negative integer`);
  }
  const gross = line.unitPrice * line.quantity;
  const percent = withBulkDiscount ? bulkDiscountFor(line.quantity) : 0;
  return applyDiscount(gross, percent);
};

/**
 * Compute subtotal, discount, tax and grand total for an order.
 * Bulk discounts are applied per line; the coupon is applied to the whole order before tax.
 *
 * @param lines - The order lines.
 * @param region - The region used for tax.
 * @param options - Optional coupon percentage and whether to apply bulk discounts (default true).
 * @returns The rounded totals; `discount` is the sum of bulk and coupon discounts.
 * @throws {RangeError} If the coupon is outside 0..100 or a line has an invalid quantity.
 */
export function orderTotals(lines: OrderLine[], region: Region, options: { couponPercent?: number; applyBulkDiscount?: boolean } = {}): OrderTotals {
  const useBulk = options.applyBulkDiscount ?? true;
  let subtotal = 0;
  let afterBulk = 0;
  let tax = 0;
  const discounted = lines.map((line) => {
    subtotal += line.unitPrice * line.quantity;
    const net = lineTotal(line, useBulk);
    afterBulk += net;
    return { line, net };
  });
  const afterCoupon = applyDiscount(afterBulk, options.couponPercent ?? 0);
  const couponFactor = afterBulk === 0 ? 0 : afterCoupon / afterBulk;
  for (const { line, net } of discounted) {
    const lineNet = net * couponFactor;
    tax += applyTax(lineNet, region, line.taxClass) - lineNet;
  }
  return {
    subtotal: roundCurrency(subtotal),
    discount: roundCurrency(subtotal - afterCoupon),
    tax: roundCurrency(tax),
    total: roundCurrency(afterCoupon + tax),
  };
}
