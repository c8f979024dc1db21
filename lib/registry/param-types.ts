// Parameter types of a handler written in TypeScript. Types are erased at run time, so
// start_mcp's compile step reads them from the source and attaches the result to each
// typed function under PARAM_TYPES; registration reads it back here.
import { inputSchemaFromParams, type SchemaObject } from "../schema/index.ts";
import type { DocComment } from "./doc-comment.ts";
import type { Param } from "./signature.ts";
import { isRecord } from "../util/guards.ts";

export const PARAM_TYPES = Symbol.for("hubmcp.paramTypes");

export interface ParamTypes {
  /** Schema per argument name as callers send it: positional names, or the keys of a destructured first parameter. */
  properties: Record<string, SchemaObject>;
  /** Arguments declared optional (`x?: T`, `T | undefined`). */
  optional: string[];
  /** Position of a parameter typed `ToolContext`, when one is. */
  context?: number;
  /** Text of the JSDoc comment above the function (`@param` lines removed). */
  description?: string;
  /** `@param` texts of that comment. */
  params?: Record<string, string>;
}

/** The types attached to `fn`, when well formed. */
export function readParamTypes(fn: Function): ParamTypes | null {
  const found: unknown = (fn as unknown as Record<symbol, unknown>)[PARAM_TYPES];
  if (!isRecord(found) || !isRecord(found.properties) || !Array.isArray(found.optional)) return null;
  if (!Object.values(found.properties).every(isRecord)) return null;
  return found as unknown as ParamTypes;
}

/**
 * The input schema a handler's parameter list declares: declared types, `?` and defaults
 * (not required), `@param` text. Tools and prompts both read their arguments here, so an
 * argument is optional for a prompt exactly when it would be for a tool.
 */
export function schemaOfParams(params: Param[], doc: DocComment | null, types: ParamTypes | null): SchemaObject {
  return inputSchemaFromParams(params, { ...types?.params, ...doc?.params }, types);
}
