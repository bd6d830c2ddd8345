import * as assert from 'assert';
import { BusDisposedError, EventBus, EventMeta, HandlerError } from '../src/bus';
import { SystemEvents, isSystemEvent } from '../src/_generated_events';

interface AppEvents extends SystemEvents {
  'order.created': { id: string; total: number };
  'order.shipped': { id: string };
  'user.login': { user: string };
}

describe('EventBus', () => {
  let bus: EventBus<AppEvents>;
  let clockValue: number;

  beforeEach(() => {
    clockValue = 1000;
    bus = new EventBus<AppEvents>({ clock: () => clockValue });
  });

  it('delivers typed payloads with metadata', () => {
    const seen: Array<[string, EventMeta]> = [];
    bus.subscribe('order.created', (order, meta) => seen.push([order.id, meta]));
    const result = bus.publish('order.created', { id: 'A1', total: 30 });
    assert.strictEqual(result.delivered, 1);
    assert.deepStrictEqual(seen, [['A1', { event: 'order.created', sequence: 1, publishedAt: 1000 }]]);
  });

  it('unsubscribes via the returned function and via unsubscribe()', () => {
    const calls: string[] = [];
    const h1 = () => calls.push('h1');
    const h2 = () => calls.push('h2');
    const off = bus.subscribe('user.login', h1);
    bus.subscribe('user.login', h2);
    off();
    bus.publish('user.login', { user: 'ana' });
    assert.deepStrictEqual(calls, ['h2']);
    assert.strictEqual(bus.unsubscribe('user.login', h2), true);
    assert.strictEqual(bus.unsubscribe('user.login', h2), false);
    assert.strictEqual(bus.listenerCount('user.login'), 0);
  });

  it('runs once() handlers a single time', () => {
    let count = 0;
    bus.once('order.shipped', () => count++);
    bus.publish('order.shipped', { id: 'A1' });
    bus.publish('order.shipped', { id: 'A2' });
    assert.strictEqual(count, 1);
    assert.strictEqual(bus.listenerCount(), 0);
  });

  it('isolates handler errors and reports them', () => {
    const reported: HandlerError[] = [];
    const safeBus = new EventBus<AppEvents>({ onError: (e) => reported.push(e) });
    let reachedSecond = false;
    safeBus.subscribe('order.created', () => {
      throw new Error('boom');
    });
    safeBus.subscribe('order.created', () => {
      reachedSecond = true;
    });
    const result = safeBus.publish('order.created', { id: 'X', total: 1 });
    assert.ok(reachedSecond);
    assert.strictEqual(result.errors.length, 1);
    assert.ok(result.errors[0] instanceof HandlerError);
    assert.match(result.errors[0].message, /order\.created.*boom/);
    assert.strictEqual(reported.length, 1);
  });

  it('supports wildcard pattern subscriptions', () => {
    const topics: string[] = [];
    const off = bus.subscribePattern('order.*', (_payload, meta) => topics.push(meta.event));
    bus.subscribePattern('#', () => topics.push('all'));
    bus.publish('order.created', { id: 'B', total: 2 });
    bus.publish('user.login', { user: 'bo' });
    off();
    bus.publish('order.shipped', { id: 'B' });
    assert.deepStrictEqual(topics, ['order.created', 'all', 'all', 'all']);
    assert.throws(() => bus.subscribePattern('', () => undefined), TypeError);
  });

  it('enforces maxListeners', () => {
    const limited = new EventBus<AppEvents>({ maxListeners: 1 });
    limited.subscribe('user.login', () => undefined);
    assert.throws(() => limited.subscribe('user.login', () => undefined), RangeError);
    assert.throws(() => new EventBus<AppEvents>({ maxListeners: 0 }), RangeError);
  });

  it('resolves waitFor() when the event is published', async () => {
    const pending = bus.waitFor('system.stopping', 1000);
    bus.publish('system.stopping', { reason: 'test' });
    assert.deepStrictEqual(await pending, { reason: 'test' });
    assert.strictEqual(isSystemEvent('system.stopping'), true);
  });

  it('rejects use after dispose()', () => {
    bus.subscribe('user.login', () => undefined);
    bus.dispose();
    assert.strictEqual(bus.listenerCount(), 0);
    assert.throws(() => bus.publish('user.login', { user: 'x' }), BusDisposedError);
    assert.throws(() => bus.subscribe('user.login', () => undefined), BusDisposedError);
  });
});
