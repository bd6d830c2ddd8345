import EventEmitter from 'eventemitter3';
import { matchesPattern, patternToRegExp, toErrorMessage } from './util';

export interface EventMeta {
  event: string;
  sequence: number;
  publishedAt: number;
}

export type Handler<T> = (payload: T, meta: EventMeta) => void;
export type Unsubscribe = () => void;

export interface PublishResult {
  delivered: number;
  errors: HandlerError[];
}

export interface EventBusOptions {
  clock?: () => number;
  maxListeners?: number;
  onError?: (error: HandlerError) => void;
}

export class BusDisposedError extends Error {
  constructor() {
    super('EventBus has been disposed');
    this.name = 'BusDisposedError';
  }
}

export class HandlerError extends Error {
  constructor(public readonly event: string, public readonly original: unknown) {
    super(`Handler for "${event}" failed: ${toErrorMessage(original)}`);
    this.name = 'HandlerError';
  }
}

type Listener = (payload: unknown, meta: EventMeta) => void;

export class EventBus<Events extends object> {
  private readonly emitter = new EventEmitter();
  private readonly wrappers = new Map<string, Map<Handler<never>, Listener>>();
  private readonly patterns: Array<{ pattern: string; handler: Handler<unknown> }> = [];
  private collecting: HandlerError[] | null = null;
  private sequence = 0;
  private disposed = false;

  constructor(private readonly options: EventBusOptions = {}) {
    if (options.maxListeners !== undefined && options.maxListeners < 1) {
      throw new RangeError('maxListeners must be at least 1');
    }
  }

  /**
   * Register a handler for an event. Exceptions thrown by the handler are caught and
   * reported through `publish()`'s result instead of interrupting other handlers.
   *
   * @param event - The event name.
   * @param handler - Called with the payload and delivery metadata.
   * @returns A function that removes this subscription.
   * @throws {BusDisposedError} If the bus has been disposed.
   * @throws {RangeError} If the event already has `maxListeners` handlers.
   */
  subscribe<K extends keyof Events & string>(event: K, handler: Handler<Events[K]>): Unsubscribe {
    this.assertOpen();
    const limit = this.options.maxListeners;
    if (limit !== undefined && this.emitter.listenerCount(event) >= limit) {
      throw new RangeError(`"${event}" already has ${limit} listeners`);
    }
    this.emitter.on(event, this.wrap(event, handler));
    return () => {
      this.unsubscribe(event, handler);
    };
  }

  once<K extends keyof Events & string>(event: K, handler: Handler<Events[K]>): Unsubscribe {
    this.assertOpen();
    this.emitter.once(event, this.wrap(event, handler, true));
    return () => {
      this.unsubscribe(event, handler);
    };
  }

  /**
   * Remove a handler previously passed to `subscribe()` or `once()`.
   *
   * @param event - The event name.
   * @param handler - The exact handler function that was registered.
   * @returns `true` if the handler was registered and has been removed.
   */
  unsubscribe<K extends keyof Events & string>(event: K, handler: Handler<Events[K]>): boolean {
    const byHandler = this.wrappers.get(event);
    const listener = byHandler?.get(handler);
    if (!byHandler || !listener) {
      return false;
    }
    byHandler.delete(handler);
    this.emitter.off(event, listener);
    return true;
  }

  subscribePattern(pattern: string, handler: Handler<unknown>): Unsubscribe {
    this.assertOpen();
    patternToRegExp(pattern);
    const entry = { pattern, handler };
    this.patterns.push(entry);
    return () => {
      const index = this.patterns.indexOf(entry);
      if (index >= 0) {
        this.patterns.splice(index, 1);
      }
    };
  }

  /**
   * Deliver a payload synchronously to every handler of the event and every matching pattern handler.
   *
   * @param event - The event name.
   * @param payload - The payload, typed by the bus's event map.
   * @returns How many handlers received the event and the errors any of them threw.
   * @throws {BusDisposedError} If the bus has been disposed.
   */
  publish<K extends keyof Events & string>(event: K, payload: Events[K]): PublishResult {
    this.assertOpen();
    const meta: EventMeta = { event, sequence: ++this.sequence, publishedAt: this.now() };
    const errors: HandlerError[] = [];
    let delivered = this.emitter.listenerCount(event);
    this.collecting = errors;
    try {
      this.emitter.emit(event, payload, meta);
      for (const { pattern, handler } of [...this.patterns]) {
        if (matchesPattern(pattern, event)) {
          delivered++;
          this.invoke(event, handler, payload, meta);
        }
      }
    } finally {
      this.collecting = null;
    }
    errors.forEach((err) => this.options.onError?.(err));
    return { delivered, errors };
  }

  waitFor<K extends keyof Events & string>(event: K, timeoutMs = 0): Promise<Events[K]> {
    return new Promise((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const handler: Handler<Events[K]> = (payload) => {
        clearTimeout(timer);
        resolve(payload);
      };
      this.once(event, handler);
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          this.unsubscribe(event, handler);
          reject(new Error(`Timed out after ${timeoutMs}ms waiting for "${event}"`));
        }, timeoutMs);
      }
    });
  }

  listenerCount(event?: keyof Events & string): number {
    if (event !== undefined) {
      return this.emitter.listenerCount(event);
    }
    return this.emitter.eventNames().reduce((sum, name) => sum + this.emitter.listenerCount(name), 0);
  }

  dispose(): void {
    this.emitter.removeAllListeners();
    this.wrappers.clear();
    this.patterns.length = 0;
    this.disposed = true;
  }

  private wrap<T>(event: string, handler: Handler<T>, once = false): Listener {
    const listener: Listener = (payload, meta) => {
      if (once) {
        this.wrappers.get(event)?.delete(handler);
      }
      this.invoke(event, handler as Handler<unknown>, payload, meta);
    };
    let byHandler = this.wrappers.get(event);
    if (!byHandler) {
      byHandler = new Map();
      this.wrappers.set(event, byHandler);
    }
    byHandler.set(handler, listener);
    return listener;
  }

  private invoke(event: string, handler: Handler<unknown>, payload: unknown, meta: EventMeta): void {
    try {
      handler(payload, meta);
    } catch (err) {
      const wrapped = new HandlerError(event, err);
      if (this.collecting) {
        this.collecting.push(wrapped);
      } else {
        this.options.onError?.(wrapped);
      }
    }
  }

  private now(): number {
    return this.options.clock ? this.options.clock() : Date.now();
  }

  private assertOpen(): void {
    if (this.disposed) {
      throw new BusDisposedError();
    }
  }
}
