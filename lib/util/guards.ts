// Shape checks on values that arrived as JSON.

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An object literal (or `Object.create(null)`), not a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value[key]` when it is the value's own: a key named like an Object.prototype member finds nothing inherited. */
export function ownValue(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * Sets `key` as an own data property: a key that came as data (`__proto__` included) becomes a
 * property, never the object's prototype, as plain assignment would make it.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * What `await` would wait on. Hot paths answer a synchronous result at once instead of
 * awaiting it: every await costs a promise and a turn of the microtask queue.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}
