export type { JsonSchema, SchemaObject, ValidationError, ValidationResult, Validator } from "./types.ts";
export { SchemaError } from "./types.ts";
export { compileSchema, type CompileOptions } from "./compile.ts";
export { applyDefaults, compileDefaults, type DefaultsFiller } from "./defaults.ts";
export { inputSchemaFromParams } from "./generate.ts";
export { isFlatElicitationSchema } from "./elicitation.ts";
export { problem, section, type Fail, type Section } from "./problems.ts";
export type { Converted, Filled, Present } from "./converted.ts";
export {
  s,
  objectSchema,
  SchemaBuilder,
  type AnySchemaBuilder,
  type Infer,
  type InferShape,
  type Shape,
  type Presence,
  type StringOptions,
  type NumberOptions,
  type ArrayOptions,
  type ObjectOptions,
} from "./builder.ts";
