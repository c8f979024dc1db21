// The type of a value checked against an `s` declaration and then converted (units changed,
// defaults that depend on other keys filled in, keys renamed): written as the changes to the
// declaration's own type, so a key added to the declaration shows up in the converted type
// without being written a second time.
import type { Flatten } from "./builder.ts";

/** `V` with the keys `K` always there: filled in after validation (a default that depends on other keys). */
export type Filled<V, K extends keyof V> = Flatten<Omit<V, K> & { [P in K]-?: Exclude<V[P], undefined> }>;

/** `V` with the optional keys `K` always there, `undefined` when not given (read as `v.key` into the converted value). */
export type Present<V, K extends keyof V> = Flatten<Omit<V, K> & { [P in Extract<keyof V, K>]: V[P] }>;

/** Arrays and maps of a converted value are read-only too (one level below the value's own keys). */
type Frozen<T> = T extends readonly (infer I)[] ? readonly I[] : T extends object ? Readonly<T> : T;

/**
 * `V` as converted, read-only: the keys in `Drop` gone (read into something else), those of
 * `Changes` added or retyped, every other key as declared (optional ones stay optional).
 */
export type Converted<V, Changes extends object = {}, Drop extends keyof V = never> = Flatten<{
  readonly [K in keyof (Omit<V, Drop | keyof Changes> & Changes)]: Frozen<(Omit<V, Drop | keyof Changes> & Changes)[K]>;
}>;
