import { RequestContext } from "../context.ts";
import type { Send } from "../client-requests.ts";
import type { CallScope } from "../core.ts";
import { invalidParams, quoteName } from "../errors.ts";
import { isRecord } from "../jsonrpc.ts";
import { runTool } from "../run-tool.ts";
import { callAsync, canReceiveTasks } from "../../async/call.ts";
import { errorResult } from "../tool-result.ts";
import type { RegisteredTool } from "../../registry/tools.ts";
import { paginate } from "./paginate.ts";
import type { MethodTable, Result } from "./types.ts";

function progressToken(params: Record<string, unknown>): string | number | undefined {
  const meta = params._meta;
  if (!isRecord(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** A context for a context-bearing tool; its signal follows the transport's. */
export function contextFor(scope: CallScope, params: Record<string, unknown>, signal: AbortSignal): RequestContext {
  return new RequestContext({
    session: scope.session,
    requestId: scope.id,
    server: scope.core.facade,
    signal,
    progressToken: progressToken(params),
    // A transport may report false (no stream took it); the declared type says void.
    send: (message) => (scope.send as Send)(message),
    requests: scope.core.clientRequests,
    closeStream: () => scope.closeStream?.(),
  });
}

export function lookupTool(scope: CallScope, name: unknown): RegisteredTool {
  if (typeof name !== "string") throw invalidParams("Invalid params: name must be a string");
  const tool = scope.core.tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: ${quoteName(name)}`);
  return tool;
}

/**
 * A client that cannot receive tasks gets a job handle from an async tool, never its
 * structured result; listing the outputSchema would make strict clients reject every call.
 */
function jobEntry(tool: RegisteredTool): Record<string, unknown> {
  if (tool.kind !== "async" || tool.outputSchema === undefined) return tool.entry;
  const { outputSchema: _hidden, ...entry } = tool.entry;
  return entry;
}

export const toolMethods = {
  "tools/list": (params, scope) => {
    const jobsOnly = !canReceiveTasks(scope, params);
    return paginate(Array.from(scope.core.tools.values(), (t) => (jobsOnly ? jobEntry(t) : t.entry)), params, scope.core.pageSize, "tools");
  },

  async "tools/call"(params, scope) {
    const tool = lookupTool(scope, params.name);
    const args = params.arguments ?? {};
    if (!isRecord(args)) throw invalidParams("Invalid params: arguments must be an object");
    const background = callAsync(scope.core.runs, scope, tool, args, params, (s, signal) => contextFor(s, params, signal));
    if (background) return background;
    const ctx = tool.contextBearing ? contextFor(scope, params, scope.signal ?? new AbortController().signal) : undefined;
    const outcome = await runTool(tool, args, ctx);
    return (outcome.kind === "result" ? outcome.result : errorResult(outcome.message)) as Result;
  },
} satisfies MethodTable;
