import { DEFAULT_RETRY } from './_generated_events';
import { applyJitter, clamp, toErrorMessage } from './util';

export class QueueClosedError extends Error {
  constructor(action: string) {
    super(`Cannot ${action}: queue is closed`);
    this.name = 'QueueClosedError';
  }
}

export interface BackoffOptions {
  baseDelayMs: number;
  maxDelayMs: number;
  factor: number;
  jitterRatio: number;
}

export interface RetryOptions extends Partial<BackoffOptions> {
  maxAttempts?: number;
  clock?: () => number;
  random?: () => number;
}

export interface QueueEntry<T> {
  id: number;
  item: T;
  attempts: number;
  notBefore: number;
  lastError?: string;
}

export interface DrainResult {
  processed: number;
  retried: number;
  deadLettered: number;
  deferred: number;
}

/**
 * Compute the delay before the next attempt using capped exponential backoff with jitter.
 *
 * @param attempt - The number of attempts made so far (1 for the first failure).
 * @param options - Base delay, growth factor, cap and jitter ratio.
 * @param random - Source of randomness in [0, 1); injectable for deterministic tests.
 * @returns The delay in milliseconds, never more than `maxDelayMs`.
 * @throws {RangeError} If attempt is not a positive integer.
 */
export function computeBackoff(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  if (!Number.isInteger(attempt) || attempt < 1) {
    throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
  }
  const exponential = options.baseDelayMs * options.factor ** (attempt - 1);
  const capped = Math.min(exponential, options.maxDelayMs);
  return clamp(applyJitter(capped, options.jitterRatio, random), 0, options.maxDelayMs);
}

export class RetryQueue<T> {
  private pending: QueueEntry<T>[] = [];
  private dead: QueueEntry<T>[] = [];
  private closed = false;
  private nextId = 1;
  private readonly maxAttempts: number;
  private readonly backoff: BackoffOptions;
  private readonly clock: () => number;
  private readonly random: () => number;

  constructor(private readonly handler: (item: T, attempt: number) => void | Promise<void>, options: RetryOptions = {}) {
    this.maxAttempts = options.maxAttempts ?? DEFAULT_RETRY.maxAttempts;
    this.backoff = {
      baseDelayMs: options.baseDelayMs ?? DEFAULT_RETRY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs,
      factor: options.factor ?? DEFAULT_RETRY.factor,
      jitterRatio: options.jitterRatio ?? DEFAULT_RETRY.jitterRatio,
    };
    this.clock = options.clock ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  get size(): number {
    return this.pending.length;
  }

  get deadLetters(): ReadonlyArray<QueueEntry<T>> {
    return this.dead;
  }

  /**
   * Add an item to the queue.
   *
   * @param item - The work item.
   * @param delayMs - Optional delay before the item becomes eligible for `drain()`.
   * @returns The id assigned to the entry.
   * @throws {QueueClosedError} If `close()` has been called.
   */
  enqueue(item: T, delayMs = 0): number {
    if (this.closed) {
      throw new QueueClosedError('enqueue');
    }
    const entry: QueueEntry<T> = { id: this.nextId++, item, attempts: 0, notBefore: this.clock() + delayMs };
    this.pending.push(entry);
    return entry.id;
  }

  /**
   * Run the handler once for every entry that is due. Failed entries are rescheduled with
   * backoff, or moved to the dead-letter list after `maxAttempts` attempts.
   *
   * @returns Counts of processed, retried, dead-lettered and still-deferred entries.
   */
  async drain(): Promise<DrainResult> {
    const now = this.clock();
    const due = this.pending.filter((e) => e.notBefore <= now);
    this.pending = this.pending.filter((e) => e.notBefore > now);
    const result: DrainResult = { processed: 0, retried: 0, deadLettered: 0, deferred: this.pending.length };
    for (const entry of due) {
      entry.attempts += 1;
      try {
        await this.handler(entry.item, entry.attempts);
        result.processed++;
      } catch (err) {
        entry.lastError = toErrorMessage(err);
        if (entry.attempts >= this.maxAttempts) {
          this.dead.push(entry);
          result.deadLettered++;
        } else {
          entry.notBefore = now + computeBackoff(entry.attempts, this.backoff, this.random);
          this.pending.push(entry);
          result.retried++;
        }
      }
    }
    return result;
  }

  nextDelay(): number {
    if (this.pending.length === 0) {
      return null;
    }
    const soonest = Math.min(...this.pending.map((e) => e.notBefore));
    return Math.max(0, soonest - this.clock());
  }

  lastErrorFor(id: number): string | undefined {
    const entry = this.dead.find((e) => e.id === id) ?? this.pending.find((e) => e.id === id);
    return entry.lastError;
  }

  requeueDeadLetters(): number {
    if (this.closed) {
      throw new QueueClosedError('requeue dead letters');
    }
    const revived = this.dead.splice(0, this.dead.length);
    for (const entry of revived) {
      entry.attempts = 0;
      entry.notBefore = this.clock();
      this.pending.push(entry);
    }
    return revived.length;
  }

  close(): QueueEntry<T>[] {
    this.closed = true;
    const remaining = this.pending;
    this.pending = [];
    return remaining;
  }
}
