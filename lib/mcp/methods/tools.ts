// `tools/list` and `tools/call` (MCP 2025-11-25 server/tools). Async tools are a plug-in
// (lib/tasks) that wraps these two methods; nothing here knows jobs or tasks.
import { Context, progressTokenOf } from "../context.ts";
import type { Call } from "../exchange.ts";
import { invalidParams, quoteName } from "../errors.ts";
import { isRecord } from "../../util/guards.ts";
import { ErrorCode, JsonRpcError } from "../../util/jsonrpc.ts";
import { runTool, type ToolOutcome } from "../run-tool.ts";
import { errorResult } from "../tool-result.ts";
import type { RegisteredTool } from "../../registry/tools.ts";
import { paginate } from "./paginate.ts";
import type { MethodTable, Result } from "./types.ts";

export function lookupTool(call: Call, name: unknown): RegisteredTool {
  if (typeof name !== "string") throw invalidParams("Invalid params: name must be a string");
  const tool = call.core.tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: ${quoteName(name)}`);
  return tool;
}

/** The arguments of a `tools/call`, checked to be an object. */
export function toolArguments(params: Record<string, unknown>): Record<string, unknown> {
  const args = params.arguments ?? {};
  if (!isRecord(args)) throw invalidParams("Invalid params: arguments must be an object");
  return args;
}

function callResult(outcome: ToolOutcome): Result {
  return (outcome.kind === "result" ? outcome.result : errorResult(outcome.message)) as Result;
}

export const toolMethods = {
  "tools/list": (params, { core }) =>
    paginate(
      Array.from(core.tools.values(), (t) => t.entry),
      params,
      core.pageSize,
      "tools",
    ),

  /** Synchronous for a synchronous tool (see runTool). */
  "tools/call"(params, call) {
    const tool = lookupTool(call, params.name);
    const args = toolArguments(params);
    // A task request to a tool that cannot run as one (MCP server/tools "Tool-Level Negotiation").
    if (isRecord(params.task) && tool.kind !== "async") {
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Tool ${quoteName(tool.name)} does not support task execution`);
    }
    const ctx = tool.contextBearing ? new Context(call, progressTokenOf(params)) : undefined;
    const outcome = runTool(tool, args, ctx, call.core.logger);
    return outcome instanceof Promise ? outcome.then(callResult) : callResult(outcome);
  },
} satisfies MethodTable;
