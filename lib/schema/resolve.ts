// Local reference resolution: a pure pass that indexes every `$id` and `$anchor` of one
// schema document, then resolves `$ref` values against base URIs (RFC 3986) to the
// schema they name. Remote documents are never fetched.
import { SchemaError, type JsonSchema } from "./types.ts";
import { isRecord } from "../util/guards.ts";
import { at } from "./keywords/shared.ts";

/** A resolved target: the schema, the base URI its own `$id` resolves against, its location. */
export interface Target {
  schema: JsonSchema;
  parentBase: string;
  location: string;
}

/** Base URI for documents without an `$id`; never fetched, only used to resolve against. */
export const DEFAULT_BASE = "https://hubmcp.invalid/schema.json";

const SINGLE = [
  "additionalProperties",
  "propertyNames",
  "items",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
];
const MAPS = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];

export function resolveUri(ref: string, base: string): string {
  try {
    return new URL(ref, base).href;
  } catch {
    // Bases like `urn:` ones cannot take relative paths, only fragments.
    if (ref.startsWith("#")) return withoutFragment(base) + ref;
    return ref;
  }
}

const withoutFragment = (uri: string) => (uri.includes("#") ? uri.slice(0, uri.indexOf("#")) : uri);

/** The base a schema's members resolve against: its `$id` applied to its parent's base. */
export function baseOf(schema: JsonSchema, parentBase: string): string {
  if (!isRecord(schema) || typeof schema.$id !== "string") return parentBase;
  return withoutFragment(resolveUri(schema.$id, parentBase));
}

export class SchemaIndex {
  readonly #byUri = new Map<string, Target>();

  constructor(root: JsonSchema) {
    this.#byUri.set(DEFAULT_BASE, { schema: root, parentBase: DEFAULT_BASE, location: "#" });
    this.#walk(root, DEFAULT_BASE, "#");
  }

  #walk(schema: unknown, parentBase: string, location: string): void {
    if (!isRecord(schema)) return;
    const id = schema.$id;
    if (id !== undefined) {
      if (typeof id !== "string") throw new SchemaError(`${location}/$id`, "must be a string");
      if (/#./.test(id)) throw new SchemaError(`${location}/$id`, "must not contain a fragment");
      this.#byUri.set(baseOf(schema, parentBase), { schema, parentBase, location });
    }
    const base = baseOf(schema, parentBase);
    for (const keyword of ["$anchor", "$dynamicAnchor"]) {
      const anchor = schema[keyword];
      if (anchor === undefined) continue;
      if (typeof anchor !== "string" || !/^[A-Za-z_][\w.-]*$/.test(anchor)) {
        throw new SchemaError(`${location}/${keyword}`, "must be a plain name");
      }
      this.#byUri.set(`${base}#${anchor}`, { schema, parentBase, location });
    }
    for (const k of SINGLE) if (schema[k] !== undefined) this.#walk(schema[k], base, at(location, k));
    for (const k of MAPS) {
      const map = schema[k];
      if (isRecord(map)) for (const [name, sub] of Object.entries(map)) this.#walk(sub, base, at(location, k, name));
    }
    for (const k of LISTS) {
      const list = schema[k];
      if (Array.isArray(list)) list.forEach((sub, i) => this.#walk(sub, base, at(location, k, i)));
    }
  }

  /** The schema `ref` names, seen from a schema whose base is `base`. */
  resolve(ref: string, base: string, refLocation: string): Target {
    const uri = resolveUri(ref, base);
    const hash = uri.indexOf("#");
    const doc = hash === -1 ? uri : uri.slice(0, hash);
    const fragment = hash === -1 ? "" : uri.slice(hash + 1);
    const resource = this.#byUri.get(doc);
    if (resource === undefined) throw new SchemaError(refLocation, "cannot be resolved (only references within the schema are supported)");
    if (fragment === "") return resource;
    if (!fragment.startsWith("/")) {
      const anchored = this.#byUri.get(`${doc}#${decodeRef(fragment, refLocation)}`);
      if (anchored === undefined) throw new SchemaError(refLocation, "names an anchor that does not exist");
      return anchored;
    }
    return this.#follow(resource, fragment, refLocation);
  }

  /** Walks a JSON Pointer fragment, tracking `$id`s passed on the way. */
  #follow(resource: Target, pointer: string, refLocation: string): Target {
    let node: unknown = resource.schema;
    let parentBase = resource.parentBase;
    let location = resource.location;
    for (const raw of pointer.slice(1).split("/")) {
      const segment = decodeRef(raw, refLocation).replace(/~1/g, "/").replace(/~0/g, "~");
      parentBase = isRecord(node) ? baseOf(node, parentBase) : parentBase;
      const next: unknown =
        Array.isArray(node) && /^(0|[1-9]\d*)$/.test(segment)
          ? node[Number(segment)]
          : isRecord(node) && Object.hasOwn(node, segment)
            ? node[segment]
            : undefined;
      if (next === undefined) throw new SchemaError(refLocation, "points at nothing");
      node = next;
      location = at(location, segment);
    }
    if (typeof node !== "boolean" && !isRecord(node)) throw new SchemaError(refLocation, "does not point at a schema");
    return { schema: node, parentBase, location };
  }
}

/** A `$ref` with a malformed %-escape is a schema error at the ref, not a URIError. */
function decodeRef(text: string, refLocation: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new SchemaError(refLocation, "has a malformed %-escape");
  }
}
