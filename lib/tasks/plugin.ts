// Async tools as a plug-in of the dispatcher: it wraps `tools/call` and `tools/list` and adds
// `tasks/*`. A call to an async tool starts a background run and answers at once with a
// job handle (older clients), a seed-form task or an MCP 2025-11-25 task.
import { Context, progressTokenOf } from "../mcp/context.ts";
import type { Call, Exchange } from "../mcp/exchange.ts";
import { lookupTool, toolArguments } from "../mcp/methods/tools.ts";
import type { Method, MethodTable, Result } from "../mcp/methods/types.ts";
import { describeErrors, runTool, type ToolOutcome } from "../mcp/run-tool.ts";
import { errorResult } from "../mcp/tool-result.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import { isRecord } from "../util/guards.ts";
import { ErrorCode, JsonRpcError, type JsonRpcMessage } from "../util/jsonrpc.ts";
import { executeTool } from "./execute.ts";
import { JOB_RESULT_TOOL, type PollScope } from "./job-tool.ts";
import type { AsyncRun, RunKind } from "./run.ts";
import type { AsyncStore } from "./store.ts";
import { statelessToolCall } from "./stateless.ts";
import { taskMethods } from "./tasks.ts";
import { jobStarted, mcpTask, seedCreated } from "./views.ts";
import { EXTENSION, META } from "../mcp/extension-ids.ts";

const hasTasksExtension = (caps: unknown): boolean => isRecord(caps) && isRecord(caps.extensions) && isRecord(caps.extensions[EXTENSION.tasks]);

/** Seed form: the tasks extension in this call's `_meta`, or in the client's capabilities. */
function wantsSeedTask(call: Call, params: Record<string, unknown>): boolean {
  const meta = params._meta;
  if (isRecord(meta) && hasTasksExtension(meta[META.clientCapabilities])) return true;
  return call.session !== null && hasTasksExtension(call.clientCapabilities);
}

/** Whether this client can receive tasks (either form), from its call `_meta` or its capabilities. */
export function canReceiveTasks(call: Call, params: Record<string, unknown>): boolean {
  return wantsSeedTask(call, params) || (call.session !== null && isRecord(call.clientCapabilities.tasks));
}

function kindOf(call: Call, params: Record<string, unknown>): RunKind {
  if (isRecord(params.task)) return { kind: "task", form: "mcp" };
  if (wantsSeedTask(call, params)) return { kind: "task", form: "seed" };
  return { kind: "job" };
}

/**
 * The exchange a run's context talks through: the run's own signal, and a sender that stops
 * once the run is over; messages of an MCP-form task name their task.
 */
function runExchange(call: Call, run: AsyncRun): Exchange {
  const tag = run.how.kind === "task" && run.how.form === "mcp";
  return {
    session: call.session,
    signal: run.signal,
    clientCapabilities: call.exchange.clientCapabilities,
    send(message: JsonRpcMessage): boolean {
      if (run.terminal) return false;
      if (tag && "method" in message) {
        const params = message.params ?? {};
        const meta = isRecord(params._meta) ? params._meta : {};
        message = { ...message, params: { ...params, _meta: { ...meta, [META.relatedTask]: { taskId: run.id } } } };
      }
      return call.send(message);
    },
  };
}

/** While the handler waits on the client the run is `input_required` (MCP tasks, "Task Status Lifecycle"). */
function followClientWaits(run: AsyncRun, now: () => number): (waiting: boolean) => void {
  let waiting = 0;
  return (starts) => {
    if (starts ? waiting++ === 0 : --waiting === 0) run.setInputRequired(starts, now());
  };
}

function startRun(runs: AsyncStore, call: Call, tool: RegisteredTool, args: Record<string, unknown>, params: Record<string, unknown>): Result {
  const how = kindOf(call, params);
  if (how.kind === "task" && !call.session) {
    throw new JsonRpcError(ErrorCode.NotAvailable, "Task-capable async tool calls require an MCP session");
  }
  // Bad arguments are refused at once, before a job or task exists: a tool error for a job's
  // client, invalid params for a task's (whose answer must otherwise be a task).
  const check = tool.validateInput(args);
  if (!check.valid) {
    const message = describeErrors("Invalid arguments", check.errors);
    if (how.kind === "job") return errorResult(message) as Result;
    throw new JsonRpcError(ErrorCode.InvalidParams, message);
  }
  const requestedTtl = how.kind === "task" && isRecord(params.task) && typeof params.task.ttl === "number" ? params.task.ttl : undefined;
  // A job's request is answered at once with its handle: the client forgets the request's
  // progress token then, so a job reports no progress on it. A task's token stays valid.
  const progressToken = how.kind === "job" ? undefined : progressTokenOf(params);
  const started = runs.start({
    how,
    session: call.session,
    toolName: tool.name,
    ttlMs: requestedTtl,
    execute(run) {
      const ctx = tool.contextBearing
        ? new Context(call.through(runExchange(call, run)), progressToken, {
            onClientWait: followClientWaits(run, () => runs.now()),
            onTaskMetadata: (entries) => runs.setHandle(run, entries),
          })
        : undefined;
      return executeTool(tool, args, ctx, call.core.logger);
    },
  });
  if (!started.ok) {
    if (how.kind === "job") return errorResult(started.message) as Result;
    throw new JsonRpcError(ErrorCode.InternalError, started.message);
  }
  const { run } = started;
  if (how.kind === "job") return jobStarted(run, progressTokenOf(params) !== undefined) as Result;
  return how.form === "seed" ? seedCreated(run) : { task: mcpTask(run, true) };
}

/**
 * A client that cannot receive tasks gets a job handle from an async tool, never its
 * structured result; listing the outputSchema would make strict clients reject every call.
 */
function hideJobOutputSchemas(call: Call, result: Result): Result {
  if (!Array.isArray(result.tools)) return result;
  const tools = result.tools.map((entry: Record<string, unknown>) => {
    const tool = call.core.tools.get(entry.name as string);
    if (tool?.kind !== "async" || entry.outputSchema === undefined) return entry;
    const { outputSchema: _hidden, ...rest } = entry;
    return rest;
  });
  return { ...result, tools };
}

/** `get_job_result` through MCP: the poll sees this session's tasks as well as jobs. */
function pollRun(tool: RegisteredTool, params: Record<string, unknown>, call: Call): Result {
  const scope: PollScope = { sessionId: call.session?.id ?? null };
  const outcome = runTool(tool, toolArguments(params), scope, call.core.logger) as ToolOutcome;
  return (outcome.kind === "result" ? outcome.result : errorResult(outcome.message)) as Result;
}

/** The methods async tools add or wrap; `base` answers calls to every other tool. */
export function asyncMethods(runs: AsyncStore, base: { "tools/call": Method; "tools/list": Method }): MethodTable {
  return {
    ...taskMethods(runs),
    async "tools/list"(params, call) {
      const result = await base["tools/list"](params, call);
      // A 2026-07-28 client without tasks gets async tools' results in-line: their schemas hold.
      if (call.exchange.stateless) return result;
      return canReceiveTasks(call, params) ? result : hideJobOutputSchemas(call, result);
    },
    "tools/call"(params, call) {
      const tool = lookupTool(call, params.name);
      if (tool.name === JOB_RESULT_TOOL && tool.kind === "sync") return pollRun(tool, params, call);
      if (tool.kind !== "async") return base["tools/call"](params, call);
      if (call.exchange.stateless) return statelessToolCall(runs, call, tool, params, base["tools/call"]);
      return startRun(runs, call, tool, toolArguments(params), params);
    },
  };
}
