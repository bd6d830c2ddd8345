import * as assert from 'assert';
import { QueueClosedError, RetryQueue, computeBackoff } from '../src/queue';

const noJitter = { baseDelayMs: 100, maxDelayMs: 1000, factor: 2, jitterRatio: 0 };

describe('computeBackoff', () => {
  it('grows exponentially and caps at maxDelayMs', () => {
    const delays = [1, 2, 3, 4, 5].map((n) => computeBackoff(n, noJitter));
    assert.deepStrictEqual(delays, [100, 200, 400, 800, 1000]);
  });

  it('applies bounded jitter and validates attempt', () => {
    const opts = { ...noJitter, jitterRatio: 0.5 };
    assert.strictEqual(computeBackoff(2, opts, () => 0), 100);
    assert.strictEqual(computeBackoff(2, opts, () => 0.5), 200);
    assert.strictEqual(computeBackoff(5, opts, () => 0.99), 1000);
    assert.throws(() => computeBackoff(0, noJitter), RangeError);
  });
});

describe('RetryQueue', () => {
  let now: number;
  let handled: string[];
  let failuresLeft: Record<string, number>;
  let queue: RetryQueue<string>;

  beforeEach(() => {
    now = 0;
    handled = [];
    failuresLeft = {};
    queue = new RetryQueue<string>((item, attempt) => {
      if ((failuresLeft[item] ?? 0) > 0) {
        failuresLeft[item]--;
        throw new Error(`${item} failed on attempt ${attempt}`);
      }
      handled.push(item);
    }, { ...noJitter, maxAttempts: 3, clock: () => now });
  });

  it('processes due items and defers delayed ones', async () => {
    queue.enqueue('a');
    queue.enqueue('b', 500);
    const result = await queue.drain();
    assert.deepStrictEqual(result, { processed: 1, retried: 0, deadLettered: 0, deferred: 1 });
    assert.deepStrictEqual(handled, ['a']);
    assert.strictEqual(queue.nextDelay(), 500);
  });

  it('retries failures after the backoff delay', async () => {
    failuresLeft.a = 1;
    queue.enqueue('a');
    assert.strictEqual((await queue.drain()).retried, 1);
    assert.strictEqual(queue.size, 1);
    now = 50;
    assert.strictEqual((await queue.drain()).processed, 0);
    now = 100;
    assert.strictEqual((await queue.drain()).processed, 1);
    assert.deepStrictEqual(handled, ['a']);
  });

  it('dead-letters items after maxAttempts and can requeue them', async () => {
    failuresLeft.x = 3;
    queue.enqueue('x');
    for (const t of [0, 100, 300]) {
      now = t;
      await queue.drain();
    }
    assert.strictEqual(queue.deadLetters.length, 1);
    assert.strictEqual(queue.deadLetters[0].attempts, 3);
    assert.strictEqual(queue.deadLetters[0].lastError, 'x failed on attempt 3');
    assert.strictEqual(queue.lastErrorFor(queue.deadLetters[0].id), 'x failed on attempt 3');
    assert.strictEqual(queue.requeueDeadLetters(), 1);
    await queue.drain();
    assert.deepStrictEqual(handled, ['x']);
  });

  it('throws QueueClosedError after close()', () => {
    queue.enqueue('left-over');
    const remaining = queue.close();
    assert.deepStrictEqual(remaining.map((e) => e.item), ['left-over']);
    assert.throws(() => queue.enqueue('late'), QueueClosedError);
    assert.throws(() => queue.requeueDeadLetters(), /queue is closed/);
  });
});
