// Settings checked against an `s` declaration (gateway.json's sections, each in its own
// settings file): compiled once, and a value that fails is reported as one line naming the
// key path (`limits.idleMinutes must be a positive number`), never the value, since a command
// line or a URL may hold a secret. The problem an operator reads is the one the declaration
// gives (`problem(...)`), not the schema's generic wording. Here, below every folder, so a
// section anywhere (the gateway's oauth/, which must see only contracts, included) can declare itself.
import { SchemaBuilder, type Presence } from "./builder.ts";
import { compileSchema } from "./compile.ts";
import { compileDefaults } from "./defaults.ts";
import type { SchemaObject, ValidationError, Validator } from "./types.ts";
import { isRecord } from "../util/guards.ts";

/** Throws the caller's config error: `key` is the dotted key path, `problem` what is wrong with it. */
export type Fail = (key: string, problem: string) => never;

/** The annotation a declaration's problem line rides on (ignored by validation, as unknown keywords are). */
const PROBLEM = "x-problem";

/** The same node, reported with `text` when the value under it is wrong. */
export function problem<T, P extends Presence>(node: SchemaBuilder<T, P>, text: string): SchemaBuilder<T, P> {
  return new SchemaBuilder<T, P>({ ...node.toJSON(), [PROBLEM]: text }, node.presence);
}

/**
 * A section compiled once: `check` throws through `fail` unless `value` matches, and returns
 * it typed, with the declared defaults filled in. Defaults are filled through `properties`
 * only (as for a tool's arguments), so a node under a map or an array is `optional()`, never
 * `default(…)`: its type would promise a value that is not there.
 */
export interface Section<T> {
  readonly schema: SchemaObject;
  check(value: unknown, key: string, fail: Fail): T;
}

export function section<T>(node: SchemaBuilder<T, Presence>): Section<T> {
  const schema = node.toJSON();
  const validate = compileSchema(schema);
  const fill = compileDefaults(schema);
  return {
    schema,
    check(value, key, fail) {
      const result = validate(value);
      if (result.valid) return (isRecord(value) ? fill(value) : value) as T;
      const [where, what] = explain(schema, value, firstError(result.errors), key);
      return fail(where, what);
    },
  };
}

/** An unknown key first, as gateway.json's errors have always put it; else the first problem found. */
const firstError = (errors: readonly ValidationError[]): ValidationError => errors.find((e) => e.message === "is not allowed") ?? errors[0]!;

const pointerSegment = (segment: string): string => segment.replace(/~1/g, "/").replace(/~0/g, "~");

/** The member of an `anyOf` the value's JSON type picks (`false` or an object, for `oauth`). */
function member(node: unknown, value: unknown): unknown {
  if (!isRecord(node) || !Array.isArray(node.anyOf)) return node;
  const type = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const found = node.anyOf.find((m) => isRecord(m) && m.type === type);
  return found ?? node;
}

/** A union's picked member, compiled on first need: its errors say more than "matches no member". */
const members = new WeakMap<object, Validator>();
function validatorOf(node: SchemaObject): Validator {
  let validate = members.get(node);
  if (validate === undefined) members.set(node, (validate = compileSchema(node)));
  return validate;
}

interface Step {
  key: string;
  node: unknown;
  /** Reached as an array's item or a map's value: its problem, when it has none, is the array's or map's. */
  item: boolean;
  /** The node is the member of a union the value picked. */
  picked: boolean;
}

/** The key path (`tools.demo.revisions.default.url`, `oauth.assertionIssuers[0].issuer`) and the problem line of one error. */
function explain(schema: SchemaObject, value: unknown, error: ValidationError, top: string): [string, string] {
  const steps: Step[] = [{ key: top, node: member(schema, value), item: false, picked: member(schema, value) !== schema }];
  let v = value;
  for (const raw of error.path.split("/").slice(1).map(pointerSegment)) {
    const last = steps.at(-1)!;
    const node = isRecord(last.node) ? last.node : {};
    if (Array.isArray(v)) {
      v = v[Number(raw)];
      const items = node.items ?? {};
      steps.push({ key: `${last.key}[${raw}]`, node: member(items, v), item: true, picked: member(items, v) !== items });
      continue;
    }
    v = isRecord(v) && Object.hasOwn(v, raw) ? v[raw] : undefined;
    const props = isRecord(node.properties) ? node.properties : {};
    const declared = Object.hasOwn(props, raw);
    const child = declared ? props[raw] : (node.additionalProperties ?? {});
    steps.push({ key: last.key ? `${last.key}.${raw}` : raw, node: member(child, v), item: !declared, picked: member(child, v) !== child });
  }
  const at = steps.at(-1)!;
  if (at.picked && isRecord(at.node)) {
    const inner = validatorOf(at.node)(v);
    if (!inner.valid) return explain(at.node, v, firstError(inner.errors), at.key);
  }
  if (at.node === false) return [at.key, "is not a known key"];
  for (let i = steps.length - 1; i >= 0; i--) {
    const { key, node, item } = steps[i]!;
    if (isRecord(node) && typeof node[PROBLEM] === "string") return [key || "(top level)", node[PROBLEM]];
    if (!item) break;
  }
  return [at.key || "(top level)", error.message];
}
