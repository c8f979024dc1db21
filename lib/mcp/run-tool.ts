// Runs one tool call: validate, fill defaults, call, shape, check the output. Shared by
// `tools/call`, `POST /tools/<name>` and async jobs so they can never disagree.
import type { ValidationError } from "../schema/index.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import { MissingCapabilityError } from "./era2026/input-required.ts";
import { errorResult, shapeToolResult, type CallToolResult } from "./tool-result.ts";

export type ToolOutcome =
  | { kind: "invalid-arguments"; message: string }
  /** `value` is what the handler returned, before shaping (undefined when it threw). */
  | { kind: "result"; result: CallToolResult; value?: unknown };

export function describeErrors(prefix: string, errors: ValidationError[]): string {
  const shown = errors.slice(0, 10).map((e) => `${e.path || "(root)"}: ${e.message}`);
  if (errors.length > shown.length) shown.push(`and ${errors.length - shown.length} more`);
  return `${prefix}: ${shown.join("; ")}`;
}

/** A thrown value's message, without stack or arguments. */
export function messageOf(err: unknown): string {
  if (err instanceof Error && err.message) return err.message;
  if (typeof err === "string" && err) return err;
  return "Tool failed";
}

export async function runTool(tool: RegisteredTool, args: Record<string, unknown>, ctx: unknown): Promise<ToolOutcome> {
  const check = tool.validateInput(args);
  if (!check.valid) return { kind: "invalid-arguments", message: describeErrors("Invalid arguments", check.errors) };
  let value: unknown;
  try {
    value = await tool.call(tool.fillDefaults(args), ctx);
  } catch (err) {
    // A stateless client lacking a capability the tool insists on: a protocol error (-32021), not a tool error.
    if (err instanceof MissingCapabilityError) throw err;
    return { kind: "result", result: errorResult(messageOf(err)) };
  }
  const result = shapeToolResult(value);
  if (tool.validateOutput && !result.isError) {
    if (result.structuredContent === undefined) {
      return { kind: "result", result: errorResult("Tool declared an outputSchema but returned no structured result") };
    }
    const out = tool.validateOutput(result.structuredContent);
    if (!out.valid) return { kind: "result", result: errorResult(describeErrors("Output does not match the tool's outputSchema", out.errors)) };
  }
  return { kind: "result", result, value };
}
