/**
 * Restrict a number to the inclusive range [min, max].
 *
 * @param value - The number to clamp.
 * @param min - Lower bound.
 * @param max - Upper bound; must not be smaller than `min`.
 * @returns `value` limited to the range.
 * @throws {RangeError} If `min` is greater than `max`.
 */
export function clamp(value: number, min: number, max: number): number {
  if (min > max) {
    throw new RangeError(`clamp: min (${min}) is greater than max (${max})`);
  }
  return Math.min(max, Math.max(min, value));
}

export const applyJitter = (value: number, ratio: number, random: () => number = Math.random): number => {
  if (ratio <= 0) {
    return value;
  }
  const spread = value * clamp(ratio, 0, 1);
  return Math.round(value - spread + random() * spread * 2);
};

export function toErrorMessage(err) {
  if (err instanceof Error) {
    return err.message;
  }
  if (typeof err === 'string') {
    return err;
  }
  return JSON.stringify(err) ?? String(err);
}

/**
 * Convert a topic pattern into a regular expression.
 * `*` matches exactly one dot-separated segment, `#` matches any remainder (including nothing).
 *
 * @param pattern - A pattern such as `order.*` or `audit.#`.
 * @returns An anchored RegExp for the pattern.
 * @throws {TypeError} If the pattern is empty.
 */
export function patternToRegExp(pattern: string): RegExp {
  if (pattern.length === 0) {
    throw new TypeError('Topic pattern must not be empty');
  }
  const escaped = pattern.replace(/[.+?^${}()|[\]\\\/]/g, '\\$&');
  const source = escaped.replace(/\*/g, '[^.]+').replace(/\\\.#$/, '(?:\\..*)?').replace(/#/g, '.*');
  return new RegExp(`^${source}$`);
}

export const matchesPattern = (pattern: string, topic: string): boolean => {
  const segments = topic.split('.');
  if (pattern === topic || pattern === '#') {
    return true;
  }
  return patternToRegExp(pattern).test(topic);
};
