// Turns whatever a tool handler returned into a CallToolResult: text for scalars, JSON text
// plus structuredContent for plain objects, content blocks as they are, an explicit result
// as written.
import { isPlainObject } from "../util/guards.ts";
import type { ContentBlock } from "./content.ts";

export interface CallToolResult {
  content: ContentBlock[];
  isError: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ToolResultOptions {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

/** An explicit result: the handler decides the content blocks and the error flag itself. */
export class ToolResult {
  readonly content: ContentBlock[];
  readonly isError: boolean;
  readonly structuredContent: Record<string, unknown> | undefined;
  constructor(content: ContentBlock[] | string, options: ToolResultOptions = {}) {
    this.content = typeof content === "string" ? [{ type: "text", text: content }] : content;
    this.isError = options.isError ?? false;
    this.structuredContent = options.structuredContent;
  }
  static error(message: string): ToolResult {
    return new ToolResult(message, { isError: true });
  }
}

const kinds = new Set(["text", "image", "audio", "resource", "resource_link"]);

/** A content block as `content.*` builds it: its type and the field that type requires. */
function isContentBlock(value: unknown): value is ContentBlock {
  if (!isPlainObject(value)) return false;
  switch (value.type) {
    case "text":
      return typeof value.text === "string";
    case "image":
    case "audio":
      return typeof value.data === "string" && typeof value.mimeType === "string";
    case "resource":
      return isPlainObject(value.resource) && typeof value.resource.uri === "string";
    case "resource_link":
      return typeof value.uri === "string" && typeof value.name === "string";
    default:
      return false;
  }
}

/** `{content: [...blocks], isError | is_error}` written by hand counts as an explicit result. */
function isExplicit(value: Record<string, unknown>): boolean {
  const blocks = value.content;
  return Array.isArray(blocks) && blocks.every((b) => typeof b === "object" && b !== null && kinds.has((b as { type?: unknown }).type as string));
}

export function shapeToolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) return { content: [], isError: false };
  if (typeof value === "string") return { content: [{ type: "text", text: value }], isError: false };
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return { content: [{ type: "text", text: String(value) }], isError: false };
  }
  if (value instanceof ToolResult) {
    const out: CallToolResult = { content: value.content, isError: value.isError };
    if (value.structuredContent !== undefined) out.structuredContent = value.structuredContent;
    return out;
  }
  // `content.image(...)`, or a list of blocks: those blocks, not their JSON text.
  if (isContentBlock(value)) return { content: [value], isError: false };
  if (Array.isArray(value) && value.length > 0 && value.every(isContentBlock)) return { content: value, isError: false };
  if (isPlainObject(value) && isExplicit(value)) {
    const { content, is_error, isError, ...rest } = value;
    const out: CallToolResult = { ...rest, content: content as ContentBlock[], isError: Boolean(isError ?? is_error) };
    return out;
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // A circular object or a nested BigInt: the thrown message would name the value's keys.
    return errorResult(UNSENDABLE);
  }
  // A function or symbol has no JSON; its String() would send the handler's own source.
  if (text === undefined) return errorResult(UNSENDABLE);
  if (isPlainObject(value)) return { content: [{ type: "text", text }], isError: false, structuredContent: value };
  return { content: [{ type: "text", text }], isError: false };
}

const UNSENDABLE = "Tool returned a value that cannot be sent as JSON";

/**
 * The `_meta` key listing tool names a result's text mentions between backticks, so a relay
 * that renames tools can rename them too (federation/references.ts).
 */
export const TOOL_REFS = "io.hubmcp/tool-refs";

/** `_meta` stating the tool names the text mentions between backticks. */
export function toolRefsMeta(names: readonly string[]): Record<string, unknown> {
  return { [TOOL_REFS]: [...names] };
}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** The text of a result's text blocks, as the REST route and job records report it. */
export function resultText(result: CallToolResult): string {
  let text = "";
  for (const block of result.content) if (block.type === "text") text += (text ? "\n" : "") + block.text;
  return text;
}
