// Compiles a JSON Schema (2020-12) once into nested closures, one per keyword family,
// so validating a value walks no schema and allocates nothing unless it fails.
import { arrayKeywords } from "./keywords/array.ts";
import { combinatorKeywords } from "./keywords/combinators.ts";
import { formatKeywords } from "./keywords/format.ts";
import { numberKeywords } from "./keywords/number.ts";
import { objectKeywords } from "./keywords/object.ts";
import { refKeywords } from "./keywords/ref.ts";
import { stringKeywords } from "./keywords/string.ts";
import { strictTypeOf, typeKeywords } from "./keywords/type.ts";
import { isRecord } from "../util/guards.ts";
import { ALWAYS, allOf, at, type Check, type Compiler, type Family, type Scope } from "./keywords/shared.ts";
import { baseOf, DEFAULT_BASE, SchemaIndex } from "./resolve.ts";
import { SchemaError, type JsonSchema, type ValidationError, type ValidationResult, type Validator } from "./types.ts";

export interface CompileOptions {
  /** Treat `format` as an assertion rather than an annotation. */
  assertFormats?: boolean;
}

const FAMILIES = [
  refKeywords,
  typeKeywords,
  numberKeywords,
  stringKeywords,
  arrayKeywords,
  objectKeywords,
  combinatorKeywords,
  formatKeywords,
] as const satisfies readonly Family[];

/** Keywords whose meaning needs dynamic scope or evaluation tracking; refused rather than ignored. */
const UNSUPPORTED = ["$dynamicRef", "$recursiveRef", "unevaluatedProperties", "unevaluatedItems"];

const NEVER: Check = (_v, p, e) => (e?.push({ path: p, message: "is not allowed" }), false);

/** A `$ref` target being or having been compiled; references call through it, so recursion works. */
interface Cell {
  check: Check;
  compiling: boolean;
  /** How many member steps deep the compilation was when this target started. */
  depth: number;
}

class Compilation implements Compiler {
  readonly assertFormats: boolean;
  readonly #index: SchemaIndex;
  readonly #cells = new Map<object, Map<string, Cell>>();
  #depth = 0;

  constructor(root: JsonSchema, assertFormats: boolean) {
    this.assertFormats = assertFormats;
    this.#index = new SchemaIndex(root);
  }

  node(schema: unknown, parentBase: string, location: string): Check {
    if (schema === true) return ALWAYS;
    if (schema === false) return NEVER;
    if (!isRecord(schema)) throw new SchemaError(location, "must be a schema (an object or a boolean)");
    for (const keyword of UNSUPPORTED) {
      if (keyword in schema) throw new SchemaError(at(location, keyword), "is not supported");
    }
    const scope: Scope = { schema, location, base: baseOf(schema, parentBase), strictType: strictTypeOf(schema.type) };
    const checks: Check[] = [];
    for (const family of FAMILIES) {
      const check = family(scope, this);
      if (check !== null) checks.push(check);
    }
    return allOf(checks);
  }

  same(scope: Scope, keyword: string, key?: string | number): Check {
    const value = scope.schema[keyword];
    const sub = key === undefined ? value : (value as Record<string | number, unknown>)[key];
    const location = key === undefined ? at(scope.location, keyword) : at(scope.location, keyword, key);
    return this.node(sub, scope.base, location);
  }

  member(scope: Scope, keyword: string, key?: string | number): Check {
    this.#depth++;
    try {
      return this.same(scope, keyword, key);
    } finally {
      this.#depth--;
    }
  }

  ref(scope: Scope, ref: string): Check {
    const refLocation = at(scope.location, "$ref");
    const target = this.#index.resolve(ref, scope.base, refLocation);
    if (typeof target.schema === "boolean") return target.schema ? ALWAYS : NEVER;
    let cells = this.#cells.get(target.schema);
    if (cells === undefined) this.#cells.set(target.schema, (cells = new Map()));
    const known = cells.get(target.parentBase);
    if (known !== undefined) {
      if (known.compiling && known.depth === this.#depth) {
        throw new SchemaError(refLocation, "forms a cycle that never steps into the value (it would recurse forever)");
      }
      return (v, p, e) => known.check(v, p, e);
    }
    const cell: Cell = { check: ALWAYS, compiling: true, depth: this.#depth };
    cells.set(target.parentBase, cell);
    cell.check = this.node(target.schema, target.parentBase, target.location);
    cell.compiling = false;
    return cell.check;
  }
}

const VALID: ValidationResult = Object.freeze({ valid: true });

/**
 * Compiles `schema` into a validator. Throws `SchemaError` naming the location when the
 * schema is malformed or uses what is not supported (remote `$ref`, `$dynamicRef`,
 * `unevaluated*`).
 */
export function compileSchema(schema: JsonSchema, options: CompileOptions = {}): Validator {
  const root = new Compilation(schema, options.assertFormats ?? false).node(schema, DEFAULT_BASE, "#");
  return (value) => {
    if (root(value, "", null)) return VALID;
    // Only failures pay for paths and messages: a second, collecting pass.
    const errors: ValidationError[] = [];
    root(value, "", errors);
    if (errors.length === 0) errors.push({ path: "", message: "is invalid" });
    return { valid: false, errors };
  };
}
