import * as assert from 'assert';
import { applyJitter, clamp, matchesPattern, patternToRegExp, toErrorMessage } from '../src/util';

describe('util', () => {
  it('clamps values and validates bounds', () => {
    assert.strictEqual(clamp(5, 0, 3), 3);
    assert.strictEqual(clamp(-1, 0, 3), 0);
    assert.throws(() => clamp(1, 5, 2), RangeError);
  });

  it('applies jitter symmetrically around the value', () => {
    assert.strictEqual(applyJitter(100, 0), 100);
    assert.strictEqual(applyJitter(100, 0.2, () => 0), 80);
    assert.strictEqual(applyJitter(100, 0.2, () => 1), 120);
  });

  it('extracts readable error messages', () => {
    assert.strictEqual(toErrorMessage(new TypeError('bad')), 'bad');
    assert.strictEqual(toErrorMessage('plain'), 'plain');
    assert.strictEqual(toErrorMessage({ code: 42 }), '{"code":42}');
  });

  it('matches topic patterns', () => {
    assert.ok(matchesPattern('order.*', 'order.created'));
    assert.ok(!matchesPattern('order.*', 'order.created.eu'));
    assert.ok(matchesPattern('audit.#', 'audit'));
    assert.ok(matchesPattern('audit.#', 'audit.user.login'));
    assert.ok(!matchesPattern('audit.#', 'auditor'));
    assert.strictEqual(patternToRegExp('a.b').source, '^a\\.b$');
  });
});
