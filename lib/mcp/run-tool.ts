// Runs one tool call: validate, fill defaults, call, shape, check the output. Shared by
// `tools/call`, `POST /tools/<name>` and async jobs so they can never disagree.
import type { ValidationError } from "../schema/index.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import { MissingCapabilityError, RoundEndedError } from "./stateless/input-required.ts";
import { errorResult, shapeToolResult, type CallToolResult } from "./tool-result.ts";
import { isThenable } from "../util/guards.ts";
import { logHandlerFailure, type Logger } from "../util/logger.ts";

export type ToolOutcome =
  | { kind: "invalid-arguments"; message: string }
  /** `value` is what the handler returned, before shaping; `thrown` what it threw instead. */
  | { kind: "result"; result: CallToolResult; value?: unknown; thrown?: unknown };

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

/**
 * Synchronous when the handler is: a tool that returns a plain value is answered in the
 * same turn, with no promise made on its way (most tools compute and return).
 */
export function runTool(tool: RegisteredTool, args: Record<string, unknown>, ctx: unknown, logger: Logger): ToolOutcome | Promise<ToolOutcome> {
  const check = tool.validateInput(args);
  if (!check.valid) return { kind: "invalid-arguments", message: describeErrors("Invalid arguments", check.errors) };
  let value: unknown;
  let later: boolean;
  try {
    value = tool.call(tool.fillDefaults(args), ctx);
    // Inside the try: reading `then` may throw (a Proxy, a getter), as it would under await.
    later = isThenable(value);
  } catch (err) {
    return thrown(tool, err, logger);
  }
  if (later)
    return Promise.resolve(value).then(
      (settled) => finished(tool, settled),
      (err: unknown) => thrown(tool, err, logger),
    );
  return finished(tool, value);
}

function thrown(tool: RegisteredTool, err: unknown, logger: Logger): ToolOutcome {
  // A stateless client lacking a capability the tool insists on: a protocol error (-32021), not a tool error.
  // A round that already ended at a question: the abandoned handler's end is nobody's failure.
  if (err instanceof MissingCapabilityError || err instanceof RoundEndedError) throw err;
  logHandlerFailure(logger, "tool", tool.name, err);
  return { kind: "result", result: errorResult(messageOf(err)), thrown: err };
}

function finished(tool: RegisteredTool, value: unknown): ToolOutcome {
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
