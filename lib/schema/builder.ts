// `s`: a small typed builder whose output is plain, inline JSON Schema 2020-12 (no
// `$ref`, which strict clients reject) and whose TypeScript type is the value it admits.
import { compileSchema } from "./compile.ts";
import type { SchemaObject } from "./types.ts";

/** How an object property built from this node is treated. */
export type Presence = "required" | "optional" | "defaulted";

/** One schema node. `T` is the value type; immutable, every method returns a new node. */
export class SchemaBuilder<T, P extends Presence = "required"> {
  /** Type-level only: the value type this node admits. */
  declare readonly __type: T;
  readonly presence: P;
  readonly #json: SchemaObject;

  constructor(json: SchemaObject, presence: P) {
    this.#json = json;
    this.presence = presence;
  }

  /** The plain JSON Schema (a fresh copy). */
  toJSON(): SchemaObject {
    return structuredClone(this.#json);
  }

  /** The property may be left out; the handler then sees `undefined`. */
  optional(): SchemaBuilder<T, "optional"> {
    return new SchemaBuilder<T, "optional">(this.#json, "optional");
  }

  /** The property may be left out; the handler then sees `value`. */
  default(value: T): SchemaBuilder<T, "defaulted"> {
    const check = compileSchema(this.#json)(value);
    if (!check.valid) throw new TypeError(`default value does not match its schema (${check.errors[0]!.message})`);
    return new SchemaBuilder<T, "defaulted">({ ...this.#json, default: structuredClone(value) }, "defaulted");
  }

  describe(text: string): SchemaBuilder<T, P> {
    return new SchemaBuilder<T, P>({ ...this.#json, description: text }, this.presence);
  }

  title(text: string): SchemaBuilder<T, P> {
    return new SchemaBuilder<T, P>({ ...this.#json, title: text }, this.presence);
  }
}

/** Any builder node, whatever its value type. */
export type AnySchemaBuilder = SchemaBuilder<unknown, Presence>;
/** The value type a builder node admits. */
export type Infer<S> = S extends SchemaBuilder<infer T, Presence> ? T : never;
/** A tool's `input` option: property name → builder node. */
export type Shape = Record<string, AnySchemaBuilder>;

export type Flatten<T> = { [K in keyof T]: T[K] } & {};
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends SchemaBuilder<unknown, "optional"> ? K : never }[keyof S];
/**
 * The object a shape describes as the handler sees it: defaulted properties are always
 * there (the server fills them in), optional ones may be missing.
 */
export type InferShape<S extends Shape> = Flatten<{ [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> }>;

export interface StringOptions {
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: "date-time" | "date" | "time" | "email" | "uri" | "uuid" | "ipv4" | "ipv6" | (string & {});
}
export interface NumberOptions {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
}
export interface ArrayOptions {
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}
export interface ObjectOptions {
  /** `false` refuses unknown properties; a node types them. Allowed by default. */
  additionalProperties?: boolean | AnySchemaBuilder;
}

type Primitive = string | number | boolean | null;

const node = <T>(json: SchemaObject): SchemaBuilder<T> => new SchemaBuilder<T>(json, "required");

/** Copies the options that are set, so no `undefined` keys reach the schema. */
function withOptions(json: SchemaObject, options: object | undefined): SchemaObject {
  for (const [key, value] of Object.entries(options ?? {})) if (value !== undefined) json[key] = value;
  return json;
}

/** `type` for a list of literal values when they share one, so clients can render them. */
function typeOfValues(values: readonly Primitive[]): SchemaObject {
  if (values.length > 0 && values.every((v) => typeof v === "string")) return { type: "string" };
  if (values.length > 0 && values.every((v) => typeof v === "number")) return { type: values.every(Number.isInteger) ? "integer" : "number" };
  if (values.length > 0 && values.every((v) => typeof v === "boolean")) return { type: "boolean" };
  return {};
}

/** Builds the object schema a shape describes (also used for a tool's `input`). */
export function objectSchema(shape: Shape, options: ObjectOptions = {}): SchemaObject {
  const properties: Record<string, SchemaObject> = {};
  const required: string[] = [];
  for (const [key, child] of Object.entries(shape)) {
    if (!(child instanceof SchemaBuilder)) throw new TypeError(`property ${JSON.stringify(key)} must be built with s.*()`);
    properties[key] = child.toJSON();
    if (child.presence === "required") required.push(key);
  }
  const json: SchemaObject = { type: "object", properties };
  if (required.length) json.required = required;
  const extra = options.additionalProperties;
  if (extra !== undefined) json.additionalProperties = typeof extra === "boolean" ? extra : extra.toJSON();
  return json;
}

export const s = {
  string: (options?: StringOptions) => node<string>(withOptions({ type: "string" }, options)),
  number: (options?: NumberOptions) => node<number>(withOptions({ type: "number" }, options)),
  integer: (options?: NumberOptions) => node<number>(withOptions({ type: "integer" }, options)),
  boolean: () => node<boolean>({ type: "boolean" }),
  array: <I extends AnySchemaBuilder>(items: I, options?: ArrayOptions) =>
    node<Array<Infer<I>>>(withOptions({ type: "array", items: items.toJSON() }, options)),
  object: <S extends Shape>(shape: S, options?: ObjectOptions) => node<InferShape<S>>(objectSchema(shape, options)),
  /** An object whose keys are names the caller chooses, each value of one kind (a map). */
  record: <V extends AnySchemaBuilder>(value: V) => node<Record<string, Infer<V>>>({ type: "object", additionalProperties: value.toJSON() }),
  enum: <const V extends readonly Primitive[]>(values: V) => node<V[number]>({ ...typeOfValues(values), enum: [...values] }),
  literal: <const V extends Primitive>(value: V) => node<V>({ ...typeOfValues([value]), const: value }),
  union: <const U extends readonly AnySchemaBuilder[]>(members: U) => node<Infer<U[number]>>({ anyOf: members.map((m) => m.toJSON()) }),
  /** The value or `null`: a type list when it can be, `anyOf` otherwise. */
  nullable: <T>(inner: SchemaBuilder<T, Presence>) => {
    const json = inner.toJSON();
    const simple = typeof json.type === "string" && !("enum" in json) && !("const" in json);
    return node<T | null>(simple ? { ...json, type: [json.type, "null"] } : { anyOf: [json, { type: "null" }] });
  },
} as const;
