import { CATEGORY_DEFAULTS, Category, isCategory } from './_generated_catalog';

export interface Dimensions {
  widthCm: number;
  heightCm: number;
  depthCm: number;
  weightKg: number;
}

export interface ItemSpec {
  sku: string;
  name: string;
  category: Category;
  unitCost: number;
  quantity?: number;
  reorderLevel?: number;
  reorderQuantity?: number;
  dimensions?: Dimensions;
}

export interface StockSnapshot {
  sku: string;
  name: string;
  quantity: number;
  value: number;
  needsReorder: boolean;
}

export class InvalidItemError extends Error {
  constructor(public readonly field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'InvalidItemError';
  }
}

const SKU_PATTERN = /^[A-Z]{3}-\d{4}$/;

export const normalizeSku = (raw) => {
  const compact = raw.trim().toUpperCase();
  return compact.replace(/\s+/g, '-');
};

/**
 * Check whether a string is a valid SKU of the form `ABC-1234`.
 *
 * @param sku - The SKU to check; it is normalised (trimmed, upper-cased) first.
 * @returns `true` if the normalised SKU matches the pattern.
 */
export function isValidSku(sku: string): boolean {
  if (typeof sku !== 'string' || sku.length === 0) {
    return false;
  }
  return SKU_PATTERN.test(normalizeSku(sku));
}

export function volumeLitres(d: Dimensions): number {
  const cubicCm = d.widthCm * d.heightCm * d.depthCm;
  return cubicCm / 1000;
}

export class StockItem {
  readonly sku: string;
  readonly name: string;
  readonly category: Category;
  unitCost: number;
  reorderLevel: number;
  reorderQuantity: number;
  dimensions?: Dimensions;
  private _quantity: number;

  /**
   * Create a stock item from a specification, filling reorder settings from the category defaults.
   *
   * @param spec - SKU, name, category, unit cost and optional stock settings.
   * @throws {InvalidItemError} If the SKU, category, cost or quantity is invalid.
   */
  constructor(spec: ItemSpec) {
    if (!isValidSku(spec.sku)) {
      throw new InvalidItemError('sku', `"${spec.sku}" is not a valid SKU`);
    }
    if (!isCategory(spec.category)) {
      throw new InvalidItemError('category', `unknown category "${spec.category}"`);
    }
    if (!(spec.unitCost >= 0)) {
      throw new InvalidItemError('unitCost', 'must be a non-negative number');
    }
    const quantity = spec.quantity ?? 0;
    if (!Number.isInteger(quantity) || quantity < 0) {
      throw new InvalidItemError('quantity', 'must be a non-negative integer');
    }
    const defaults = CATEGORY_DEFAULTS[spec.category];
    this.sku = normalizeSku(spec.sku);
    this.name = spec.name;
    this.category = spec.category;
    this.unitCost = spec.unitCost;
    this.reorderLevel = spec.reorderLevel ?? defaults.reorderLevel;
    this.reorderQuantity = spec.reorderQuantity ?? defaults.reorderQuantity;
    this.dimensions = spec.dimensions;
    this._quantity = quantity;
  }

  get quantity(): number {
    return this._quantity;
  }

  /**
   * Change the on-hand quantity by a signed amount.
   *
   * @param delta - Units to add (positive) or take away (negative); must be an integer.
   * @returns The new quantity.
   * @throws {RangeError} If delta is not an integer or the result would be negative.
   */
  adjust(delta: number): number {
    if (!Number.isInteger(delta)) {
      throw new RangeError(`delta must be an integer, got ${delta}`);
    }
    const next = this._quantity + delta;
    if (next < 0) {
      throw new RangeError(`${this.sku}: quantity cannot go below zero`);
    }
    this._quantity = next;
    return next;
  }

  needsReorder(): boolean {
    return this._quantity <= this.reorderLevel;
  }

  stockValue(): number {
    const raw = this._quantity * this.unitCost;
    return Math.round(raw * 100) / 100;
  }

  shippingWeightKg(units: number = this._quantity): number {
    const perUnit = this.dimensions.weightKg;
    return perUnit * units;
  }

  /**
   * Produce a plain, serialisable summary of the item's current stock.
   *
   * @returns The SKU, name, quantity, stock value and reorder flag.
   */
  snapshot(): StockSnapshot {
    return {
      sku: this.sku,
      name: this.name,
      quantity: this._quantity,
      value: this.stockValue(),
      needsReorder: this.needsReorder(),
    };
  }

  static fromJSON(json: string): StockItem {
    const data = JSON.parse(json) as ItemSpec;
    if (typeof data !== 'object' || data === null) {
      throw new InvalidItemError('json', 'expected an object');
    }
    return new StockItem(data);
  }
}
