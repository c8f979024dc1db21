// Values that are there at once on the hot path and behind a promise otherwise (a remembered
// record against one read from the store). Awaiting costs a request a microtask per step,
// so the hot paths pass such values on synchronously while they can.

/** `then` for a value that may already be there: `step` runs at once on a plain value. */
export function andThen<T, R>(value: T | Promise<T>, step: (value: T) => R | Promise<R>): R | Promise<R> {
  return value instanceof Promise ? value.then(step) : step(value);
}
