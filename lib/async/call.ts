// The async branch of `tools/call`: decides between a job (older clients), a seed-form task
// and an MCP 2025-11-25 task, starts the run, and answers with the matching handle.
import type { CallScope } from "../mcp/core.ts";
import { RpcError, quoteName } from "../mcp/errors.ts";
import { ErrorCode, isRecord, type JsonRpcMessage } from "../mcp/jsonrpc.ts";
import type { Result } from "../mcp/methods/types.ts";
import { describeErrors } from "../mcp/run-tool.ts";
import { errorResult } from "../mcp/tool-result.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import { executeTool } from "./execute.ts";
import type { AsyncRun, RunKind } from "./run.ts";
import type { AsyncStore } from "./store.ts";
import { jobStarted, mcpTask, RELATED_TASK, seedCreated } from "./views.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** Builds the handler's context for a call scope and a signal (tools.ts `contextFor`). */
export type ContextFactory = (scope: CallScope, signal: AbortSignal) => unknown;

const hasTasksExtension = (caps: unknown): boolean =>
  isRecord(caps) && isRecord(caps.extensions) && isRecord(caps.extensions[TASKS_EXTENSION]);

/** Seed form: the tasks extension in this call's `_meta`, or in the session's `initialize` capabilities. */
function wantsSeedTask(scope: CallScope, params: Record<string, unknown>): boolean {
  const meta = params._meta;
  if (isRecord(meta) && hasTasksExtension(meta[CLIENT_CAPABILITIES])) return true;
  return scope.session !== null && hasTasksExtension(scope.session.clientCapabilities);
}

/** Whether this client can receive tasks (either form), from its call `_meta` or its session. */
export function canReceiveTasks(scope: CallScope, params: Record<string, unknown>): boolean {
  return wantsSeedTask(scope, params) || (scope.session !== null && isRecord(scope.session.clientCapabilities.tasks));
}

function kindOf(scope: CallScope, params: Record<string, unknown>): RunKind {
  if (isRecord(params.task)) return { kind: "task", form: "mcp" };
  if (wantsSeedTask(scope, params)) return { kind: "task", form: "seed" };
  return { kind: "job" };
}

/** Methods of the context that wait on the client; while one waits, the task is `input_required`. */
const WAITS_ON_CLIENT = ["elicit", "elicitUrl", "sample"] as const;

function observeInput(ctx: unknown, run: AsyncRun, now: () => number): void {
  if (typeof ctx !== "object" || ctx === null) return;
  let waiting = 0;
  for (const name of WAITS_ON_CLIENT) {
    const original: unknown = (ctx as Record<string, unknown>)[name];
    if (typeof original !== "function") continue;
    const observed = async (...args: unknown[]): Promise<unknown> => {
      if (waiting++ === 0) run.setInputRequired(true, now());
      try {
        return await (original as (...a: unknown[]) => unknown).apply(ctx, args);
      } finally {
        if (--waiting === 0) run.setInputRequired(false, now());
      }
    };
    Object.defineProperty(ctx, name, { value: observed, configurable: true, writable: true });
  }
}

/** Messages from a run reach the client only while it lives; MCP-form ones name their task. */
function scopeForRun(scope: CallScope, run: AsyncRun): CallScope {
  const tag = run.how.kind === "task" && run.how.form === "mcp";
  return {
    ...scope,
    signal: run.signal,
    send: (message: JsonRpcMessage) => {
      if (run.terminal) return false;
      if (tag && "method" in message) {
        const params = message.params ?? {};
        const meta = isRecord(params._meta) ? params._meta : {};
        message = { ...message, params: { ...params, _meta: { ...meta, [RELATED_TASK]: { taskId: run.id } } } };
      }
      return scope.send(message);
    },
  };
}

/**
 * Handles `tools/call` when it concerns tasks or async tools; null means "run it as a normal call".
 * A task request (`params.task`) to a tool without task support is -32601 (MCP "Tool-Level Negotiation").
 */
export function callAsync(
  store: AsyncStore,
  scope: CallScope,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  params: Record<string, unknown>,
  makeContext: ContextFactory,
): Promise<Result> | null {
  if (tool.kind !== "async") {
    if (isRecord(params.task)) throw new RpcError(ErrorCode.MethodNotFound, `Tool ${quoteName(tool.name)} does not support task execution`);
    return null;
  }
  const how = kindOf(scope, params);
  if (how.kind === "task" && !scope.session) {
    throw new RpcError(ErrorCode.NotAvailable, "Task-capable async tool calls require an MCP session");
  }
  if (how.kind === "job") {
    // An older client gets bad arguments at once rather than as a job that fails.
    const check = tool.validateInput(args);
    if (!check.valid) return Promise.resolve(errorResult(describeErrors("Invalid arguments", check.errors)) as Result);
  }
  const requestedTtl = how.kind === "task" && isRecord(params.task) && typeof params.task.ttl === "number" ? params.task.ttl : undefined;
  const started = store.start({
    how,
    session: scope.session,
    toolName: tool.name,
    ttlMs: requestedTtl,
    execute(run) {
      let ctx: unknown;
      if (tool.contextBearing) {
        ctx = makeContext(scopeForRun(scope, run), run.signal);
        observeInput(ctx, run, () => store.now());
      }
      return executeTool(tool, args, ctx);
    },
  });
  if (!started.ok) {
    if (how.kind === "job") return Promise.resolve(errorResult(started.message) as Result);
    throw new RpcError(ErrorCode.InternalError, started.message);
  }
  const { run } = started;
  if (how.kind === "job") return Promise.resolve(jobStarted(run) as Result);
  return Promise.resolve(how.form === "seed" ? seedCreated(run) : { task: mcpTask(run, true) });
}
