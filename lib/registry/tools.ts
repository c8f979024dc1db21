// Tool registration: options checked once, schemas compiled once, the tools/list entry
// built once, so a call pays for none of it.
import {
  compileDefaults,
  compileSchema,
  type DefaultsFiller,
  objectSchema,
  SchemaError,
  type SchemaObject,
  type Shape,
  type ValidationError,
  type Validator,
} from "../schema/index.ts";
import { checkIcons, checkName, handlerName, withOptional, type Icon } from "./common.ts";
import { analyseHandler, invoke, type Convention, type HandlerShape } from "./convention.ts";
import { readParamTypes, schemaOfParams, type ParamTypes } from "./param-types.ts";
import { typeScriptCompiled } from "./origin.ts";

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

const ANNOTATION_TYPES = {
  title: "string",
  readOnlyHint: "boolean",
  destructiveHint: "boolean",
  idempotentHint: "boolean",
  openWorldHint: "boolean",
} as const satisfies Record<keyof ToolAnnotations, "string" | "boolean">;

export interface ToolOptions {
  /** Defaults to the handler's function name. */
  name?: string;
  title?: string;
  /** Defaults to the handler's documentation text (a leading `/** ... *\/` in its body). */
  description?: string;
  /** Generated from the handler's parameters when absent. */
  inputSchema?: SchemaObject;
  /**
   * Properties built with `s` (`{a: s.number(), b: s.number().default(2)}`): generates the
   * inputSchema, types the handler's argument, and calls the handler with the arguments
   * object (and the context second when it declares two parameters or `context: true`).
   */
  input?: Shape;
  outputSchema?: SchemaObject;
  annotations?: ToolAnnotations;
  tags?: Iterable<string>;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** Declares the handler context-bearing (it receives a ToolContext). */
  context?: boolean;
  /**
   * A context-bearing handler that also runs without one (its context is then undefined):
   * served on REST (`POST /tools/<name>`) and in OpenAPI like a tool that takes none.
   */
  contextOptional?: boolean;
  /**
   * Async tools, MCP 2026-07-28 tasks extension: "required" refuses a client that cannot take
   * a task (-32021) instead of running the call in-line; "optional" by default.
   */
  taskSupport?: "optional" | "required";
  /**
   * Async tools: a 2026-07-28 client first answers the handler's questions as input_required
   * rounds; the task starts once the handler is working with nothing left to ask.
   */
  inputBeforeTask?: boolean;
  /**
   * What the schema cannot say (a value with units out of the input's range, say): checked
   * with the schema wherever arguments are, so a bad call is refused before any job or task
   * exists. Answers what is wrong, or undefined.
   */
  checkArguments?: (args: Record<string, unknown>) => ValidationError | undefined;
}

/**
 * Any function; tools are called by parameter name, so their types are not inferred here
 * (the McpServer methods type the context; start_mcp reads a TypeScript app's parameter types).
 */
export type AnyToolHandler = (...args: never[]) => unknown;

export type ToolKind = "sync" | "async";

export interface RegisteredTool {
  readonly name: string;
  readonly kind: ToolKind;
  readonly description: string;
  readonly contextBearing: boolean;
  /** Served on REST without a context although it takes one (ToolOptions.contextOptional). */
  readonly contextOptional: boolean;
  readonly inputSchema: SchemaObject;
  readonly outputSchema: SchemaObject | undefined;
  readonly tags: ReadonlySet<string>;
  readonly validateInput: Validator;
  /** Fills in schema defaults the caller left out (compiled once). */
  readonly fillDefaults: DefaultsFiller;
  readonly validateOutput: Validator | undefined;
  /** The entry `tools/list` sends, built once. */
  readonly entry: Record<string, unknown>;
  /** How a 2026-07-28 client may run it as a task: never for a sync tool. */
  readonly taskSupport: "forbidden" | "optional" | "required";
  readonly inputBeforeTask: boolean;
  call(args: Record<string, unknown>, ctx: unknown): unknown;
}

function checkAnnotations(tool: string, annotations: unknown): ToolAnnotations | undefined {
  if (annotations === undefined) return undefined;
  if (typeof annotations !== "object" || annotations === null) throw new TypeError(`Tool ${tool}: annotations must be an object`);
  for (const [key, value] of Object.entries(annotations)) {
    const type = (ANNOTATION_TYPES as Record<string, string>)[key];
    if (type === undefined) {
      throw new TypeError(`Tool ${tool}: unknown annotation "${key}" (allowed: ${Object.keys(ANNOTATION_TYPES).join(", ")})`);
    }
    if (typeof value !== type) throw new TypeError(`Tool ${tool}: annotation "${key}" must be a ${type}`);
  }
  return annotations as ToolAnnotations;
}

function compileOrThrow(tool: string, which: string, schema: SchemaObject): Validator {
  if (typeof schema !== "object" || schema === null || schema.type !== "object") {
    throw new TypeError(`Tool ${tool}: ${which} must be a JSON Schema object with type "object"`);
  }
  try {
    return compileSchema(schema);
  } catch (err) {
    if (err instanceof SchemaError) throw new TypeError(`Tool ${tool}: ${which}: ${err.message}`);
    throw err;
  }
}

function builtInputSchema(tool: string, options: ToolOptions): SchemaObject {
  if (options.inputSchema !== undefined) throw new TypeError(`Tool ${tool}: pass either input or inputSchema, not both`);
  if (typeof options.input !== "object" || options.input === null) throw new TypeError(`Tool ${tool}: input must be an object of s.*() schemas`);
  try {
    return objectSchema(options.input);
  } catch (err) {
    throw new TypeError(`Tool ${tool}: input: ${(err as Error).message}`);
  }
}

/** With `input` the handler always takes the arguments object; the context comes second. */
function objectStyle(shape: HandlerShape, declared: boolean | undefined): Convention {
  const c = shape.convention;
  if (c.style === "object") return c;
  const count = c.names.length + (c.contextIndex === null ? 0 : 1);
  return { style: "object", contextIndex: (declared ?? count >= 2) ? 1 : null };
}

/**
 * Parameters the schema leaves untyped although their file declared types: a TypeScript
 * handler whose types no compile step attached (served by `node --import tsx`, say), or one
 * start_mcp compiled whose parameters carry no annotation. Serving them would accept any
 * JSON ("six" for a number), so registration refuses instead, saying what to write.
 */
function checkTypesReached(tool: string, schema: SchemaObject, shape: HandlerShape, types: ParamTypes | null, typescript: boolean): void {
  if (!typescript || types !== null) return;
  const properties = (schema.properties ?? {}) as Record<string, SchemaObject>;
  const untyped = Object.keys(properties).filter((name) => properties[name]!.type === undefined);
  if (untyped.length === 0) return;
  const example = untyped.map((name) => `${name}: s.number()`).join(", ");
  const input = `\`input: { ${example} }\``;
  if (typeScriptCompiled()) {
    const annotated =
      shape.convention.style === "object"
        ? `({ ${untyped.join(", ")} }: { ${untyped.map((name) => `${name}: number`).join("; ")} })`
        : `(${untyped.map((name) => `${name}: number`).join(", ")})`;
    throw new TypeError(
      `Tool ${tool}: parameter ${untyped.join(", ")} has no type; write its type in the parameter list, \`${annotated}\`, or declare ${input}`,
    );
  }
  throw new TypeError(
    `Tool ${tool}: parameter ${untyped.join(", ")} has no type this loader passes on (TypeScript types reach the schema only when start_mcp compiles the app); ` +
      `declare the arguments with ${input} or an \`inputSchema\`, which work under every loader`,
  );
}

/**
 * start_mcp saw a parameter typed ToolContext that the name rule does not take for the
 * context: served as is, it would be an argument under start_mcp's loader and under any other.
 */
function checkContextRule(tool: string, shape: HandlerShape, types: ParamTypes | null): void {
  if (types?.context === undefined || shape.convention.contextIndex === types.context) return;
  throw new TypeError(
    `Tool ${tool}: parameter ${types.context + 1} is typed ToolContext, but the context is found by name or position: ` +
      "call it ctx or context, or pass context: true to make the last parameter the context",
  );
}

/** The schema first; the tool's own check only of arguments the schema let through. */
function withCheck(schema: Validator, check: ToolOptions["checkArguments"]): Validator {
  if (!check) return schema;
  return (value) => {
    const checked = schema(value);
    if (!checked.valid) return checked;
    const error = check(value as Record<string, unknown>);
    return error ? { valid: false, errors: [error] } : checked;
  };
}

/**
 * The entry `tools/list` sends for a tool of these options (a description and inputSchema
 * given): what a catalogue that lists a tool without registering it (the gateway's, from a
 * tool.xml) must send too, so it is built here alone.
 */
export function toolEntry(name: string, options: ToolOptions & { description: string; inputSchema: SchemaObject }, kind: ToolKind): Record<string, unknown> {
  const entry = withOptional({ name } as Record<string, unknown>, {
    title: options.title,
    description: options.description || undefined,
    inputSchema: options.inputSchema,
    outputSchema: options.outputSchema,
    annotations: checkAnnotations(name, options.annotations),
    icons: checkIcons(`Tool ${name}`, options.icons),
    _meta: options._meta,
  });
  if (kind === "async") entry.execution = { taskSupport: "optional" };
  return entry;
}

/** `typescript`: the registration came from a TypeScript file (see ./origin.ts). */
export function defineTool(handler: AnyToolHandler, options: ToolOptions, kind: ToolKind, typescript = false): RegisteredTool {
  if (typeof handler !== "function") throw new TypeError("A tool handler must be a function");
  const name = checkName("Tool", options.name ?? handlerName(handler));
  const built = options.input === undefined ? undefined : builtInputSchema(name, options);
  const schemaKeys = options.inputSchema ? Object.keys((options.inputSchema.properties as object | undefined) ?? {}) : null;
  const types = readParamTypes(handler);
  // The context follows one syntactic rule (./convention.ts), the same whichever loader ran the file.
  const shape = analyseHandler(handler, options.context, schemaKeys);
  checkContextRule(name, shape, types);
  let inputSchema = built ?? options.inputSchema;
  if (inputSchema === undefined) {
    if (shape.params === null) {
      throw new TypeError(`Tool ${name}: cannot read the handler's parameters (${shape.unreadable}); pass an explicit inputSchema`);
    }
    inputSchema = schemaOfParams(shape.params, shape.doc, types);
    checkTypesReached(name, inputSchema, shape, types, typescript);
  }
  const validateInput = withCheck(compileOrThrow(name, "inputSchema", inputSchema), options.checkArguments);
  const outputSchema = options.outputSchema;
  const validateOutput = outputSchema === undefined ? undefined : compileOrThrow(name, "outputSchema", outputSchema);
  const description = options.description ?? (shape.doc?.description || types?.description) ?? "";
  const convention: Convention = built ? objectStyle(shape, options.context) : shape.convention;
  const contextBearing = convention.contextIndex !== null;
  const entry = toolEntry(name, { ...options, description, inputSchema }, kind);
  return {
    name,
    kind,
    description,
    contextBearing,
    contextOptional: contextBearing && options.contextOptional === true,
    inputSchema,
    outputSchema,
    tags: new Set(options.tags ?? []),
    validateInput,
    fillDefaults: compileDefaults(inputSchema),
    validateOutput,
    entry,
    taskSupport: kind === "async" ? (options.taskSupport === "required" ? "required" : "optional") : "forbidden",
    inputBeforeTask: kind === "async" && options.inputBeforeTask === true,
    call: (args, ctx) => invoke(handler, convention, args, ctx),
  };
}
