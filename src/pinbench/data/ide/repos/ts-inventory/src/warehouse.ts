import { Category } from './_generated_catalog';
import { ItemSpec, StockItem, normalizeSku, volumeLitres } from './item';

export class OutOfStockError extends Error {
  constructor(public readonly sku: string, public readonly requested: number, public readonly available: number) {
    super(`Cannot remove ${requested} x ${sku}: only ${available} in stock`);
    this.name = 'OutOfStockError';
  }
}

export class UnknownSkuError extends Error {
  constructor(public readonly sku: string) {
    super(`No item with SKU ${sku}`);
    this.name = 'UnknownSkuError';
  }
}

export interface ReorderSuggestion {
  sku: string;
  name: string;
  current: number;
  suggested: number;
}

export class Warehouse {
  private readonly items = new Map<string, StockItem>();

  constructor(public readonly name: string, public readonly capacityLitres: number = Infinity) {
    if (!(capacityLitres > 0)) {
      throw new RangeError(`${name}: capacityLitres must be positive`);
    }
  }

  get size(): number {
    return this.items.size;
  }

  /**
   * Register an item or increase the stock of an existing one.
   *
   * @param spec - A new item specification, or an existing StockItem instance.
   * @param quantity - Extra units to add on top of any quantity in the spec.
   * @returns The stored StockItem.
   * @throws {RangeError} If quantity is negative or the warehouse would exceed its capacity.
   */
  add(spec: ItemSpec | StockItem, quantity = 0): StockItem {
    if (quantity < 0) {
      throw new RangeError('Cannot add a negative quantity; use remove() instead');
    }
    const sku = normalizeSku(spec.sku);
    let item = this.items.get(sku);
    if (!item) {
      item = spec instanceof StockItem ? spec : new StockItem(spec);
      this.items.set(sku, item);
    }
    item.adjust(quantity);
    if (this.usedVolume() > this.capacityLitres) {
      item.adjust(-quantity);
      throw new RangeError(`${this.name} is over capacity after adding ${sku}`);
    }
    return item;
  }

  /**
   * Take units of an item out of stock.
   *
   * @param sku - The item's SKU (case-insensitive).
   * @param quantity - Number of units to remove; must be positive.
   * @returns The updated StockItem.
   * @throws {UnknownSkuError} If no item has that SKU.
   * @throws {OutOfStockError} If fewer than `quantity` units are on hand.
   */
  remove(sku: string, quantity: number): StockItem {
    if (quantity <= 0) {
      throw new RangeError('quantity must be positive');
    }
    const item = this.get(sku);
    if (item.quantity < quantity) {
      throw new OutOfStockError(item.sku, quantity, item.quantity);
    }
    item.adjust(-quantity);
    return item;
  }

  find(sku: string): StockItem | undefined {
    return this.items.get(normalizeSku(sku));
  }

  get(sku: string): StockItem {
    const item = this.find(sku);
    if (!item) {
      throw new UnknownSkuError(sku);
    }
    return item;
  }

  findByCategory(category: Category): StockItem[] {
    const matches: StockItem[] = [];
    for (const item of this.items.values()) {
      if (item.category === category) {
        matches.push(item);
      }
    }
    return matches;
  }

  /**
   * List items at or below their reorder level, most urgent first.
   * The suggested quantity tops stock back up to reorderLevel + reorderQuantity.
   *
   * @returns One suggestion per item that needs reordering, sorted by largest shortfall.
   */
  reorderSuggestions(): ReorderSuggestion[] {
    const suggestions: ReorderSuggestion[] = [];
    for (const item of this.items.values()) {
      if (!item.needsReorder()) {
        continue;
      }
      const target = item.reorderLevel + item.reorderQuantity;
      suggestions.push({ sku: item.sku, name: item.name, current: item.quantity, suggested: target - item.quantity });
    }
    return suggestions.sort((a, b) => b.suggested - a.suggested);
  }

  totalValue(): number {
    let total = 0;
    const itemCount = this.items.size;
    for (const item of this.items.values()) {
      total += item.stockValue();
    }
    return Math.round(total * 100) / 100;
  }

  usedVolume(): number {
    let litres = 0;
    for (const item of this.items.values()) {
      if (item.dimensions) {
        litres += volumeLitres(item.dimensions) * item.quantity;
      }
    }
    return litres;
  }

  /**
   * Move units of an item from this warehouse to another one.
   *
   * @param target - The receiving warehouse.
   * @param sku - The SKU to move.
   * @param quantity - Units to move.
   * @throws {OutOfStockError} If this warehouse does not hold enough units.
   * @throws {UnknownSkuError} If this warehouse has no item with that SKU.
   */
  transfer(target: Warehouse, sku: string, quantity: number): void {
    const source = this.remove(sku, quantity);
    const existing = target.find(sku);
    if (existing) {
      target.add(existing, quantity);
      return;
    }
    target.add(new StockItem({ ...source, quantity: 0 }), quantity);
  }

  restock(lines: Array<{ sku: string; quantity: number }>): number {
    let applied = 0;
    for (const line of lines) {
      try {
        this.get(line.sku).adjust(line.quantity);
        applied++;
      } catch {}
    }
    return applied;
  }
}
