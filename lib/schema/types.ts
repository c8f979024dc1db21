/** A JSON Schema (2020-12) as plain data: the source of truth for every tool's input. */
export type JsonSchema = boolean | SchemaObject;
export interface SchemaObject {
  [keyword: string]: unknown;
}

export interface ValidationError {
  /** JSON Pointer-like location in the value, "" for the root (e.g. "/points/0/x"). */
  path: string;
  message: string;
}

export type ValidationResult = { valid: true } | { valid: false; errors: ValidationError[] };
export type Validator = (value: unknown) => ValidationResult;

/** Raised at registration when a schema is malformed; `location` points into the schema. */
export class SchemaError extends Error {
  readonly code = "HUBMCP_INVALID_SCHEMA";
  readonly location: string;
  constructor(location: string, message: string) {
    super(`Invalid schema at ${location || "#"}: ${message}`);
    this.name = "SchemaError";
    this.location = location;
  }
}
