// Prompt registration: arguments declared or read from the handler's parameters, and
// the shaping of what a prompt handler returns into messages.
import { checkCompleters, checkIcons, checkName, handlerName, withOptional, type Completer, type Icon } from "./common.ts";
import { analyseHandler, invoke, type Convention } from "./convention.ts";
import { readParamTypes, schemaOfParams } from "./param-types.ts";

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface PromptOptions {
  name?: string;
  title?: string;
  description?: string;
  /** Read from the handler's parameters when absent. */
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** Suggests values for an argument (`completion/complete`). */
  complete?: Record<string, Completer>;
}

export type PromptHandler = (...args: never[]) => unknown;

export interface PromptMessage {
  role: "user" | "assistant";
  content: Record<string, unknown>;
}

export interface RegisteredPrompt {
  readonly name: string;
  readonly arguments: PromptArgument[];
  readonly entry: Record<string, unknown>;
  readonly completers: ReadonlyMap<string, Completer>;
  /** `ctx` is a context for handlers that ask the user (stateless requests only), else undefined. */
  render(args: Record<string, unknown>, ctx?: unknown): Promise<{ description?: string; messages: PromptMessage[] }>;
}

function argumentsFromHandler(
  handler: Function,
  name: string,
  declared: string[] | null,
): { args: PromptArgument[]; convention: Convention; description?: string } {
  const shape = analyseHandler(handler, false, declared);
  if (shape.params === null) throw new TypeError(`Prompt ${name}: cannot read the handler's parameters (${shape.unreadable}); pass arguments`);
  // The same schema a tool with this handler would get: its required list says which arguments are.
  const types = readParamTypes(handler);
  const schema = schemaOfParams(shape.params, shape.doc, types);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const properties = (schema.properties ?? {}) as Record<string, { description?: string }>;
  const args = Object.entries(properties).map(([argName, prop]) =>
    withOptional({ name: argName, required: required.has(argName) } as PromptArgument, { description: prop.description }),
  );
  return { args, convention: shape.convention, description: shape.doc?.description || types?.description || undefined };
}

function toMessage(item: unknown): PromptMessage {
  if (typeof item === "string") return { role: "user", content: { type: "text", text: item } };
  if (typeof item === "object" && item !== null && "role" in item && "content" in item) {
    const { role, content } = item as { role: unknown; content: unknown };
    return {
      role: role === "assistant" ? "assistant" : "user",
      content: typeof content === "string" ? { type: "text", text: content } : (content as Record<string, unknown>),
    };
  }
  return { role: "user", content: { type: "text", text: JSON.stringify(item) } };
}

export function shapePromptResult(value: unknown, description?: string): { description?: string; messages: PromptMessage[] } {
  let messages: PromptMessage[];
  if (Array.isArray(value)) messages = value.map(toMessage);
  else if (typeof value === "object" && value !== null && Array.isArray((value as { messages?: unknown }).messages)) {
    const v = value as { messages: unknown[]; description?: unknown };
    messages = v.messages.map(toMessage);
    if (typeof v.description === "string") description = v.description;
  } else messages = [toMessage(value)];
  return description === undefined ? { messages } : { description, messages };
}

export function definePrompt(handler: PromptHandler, options: PromptOptions): RegisteredPrompt {
  if (typeof handler !== "function") throw new TypeError("A prompt handler must be a function");
  const name = checkName("Prompt", options.name ?? handlerName(handler));
  const derived = argumentsFromHandler(handler, name, options.arguments?.map((a) => a.name) ?? null);
  const declared = options.arguments ?? derived.args;
  const convention = derived.convention;
  const description = options.description ?? derived.description;
  const entry = withOptional({ name } as Record<string, unknown>, {
    title: options.title,
    description,
    arguments: declared,
    icons: checkIcons(`Prompt ${name}`, options.icons),
    _meta: options._meta,
  });
  const completers = checkCompleters(
    `Prompt ${name}`,
    options.complete,
    declared.map((a) => a.name),
  );
  return {
    name,
    arguments: declared,
    entry,
    completers,
    // A one-object handler may take a context second (`(args, ctx) => …`); an extra argument is harmless to one that does not.
    render: async (args, ctx) => {
      const how = ctx !== undefined && convention.style === "object" ? { ...convention, contextIndex: 1 } : convention;
      return shapePromptResult(await invoke(handler, how, args, ctx), description);
    },
  };
}
