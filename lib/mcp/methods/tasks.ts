// `tasks/*` (interface spec "JSON-RPC methods"; MCP 2025-11-25 basic/utilities/tasks).
// A task answers in the form it was created in: seed or MCP 2025-11-25.
import type { AsyncRun } from "../../async/run.ts";
import { mcpTask, seedTask, taskResult } from "../../async/views.ts";
import type { CallScope } from "../core.ts";
import { invalidParams, RpcError } from "../errors.ts";
import { ErrorCode } from "../jsonrpc.ts";
import type { MethodTable, Result } from "./types.ts";
import { decodeCursor, encodeCursor } from "./paginate.ts";

const notHere = (): RpcError => new RpcError(ErrorCode.NotAvailable, "Task is not available in this session");

/** The caller's task: -32003 without a session or from another session, -32602 when unknown or expired. */
function taskFor(params: Record<string, unknown>, scope: CallScope): AsyncRun {
  if (typeof params.taskId !== "string") throw invalidParams("Invalid params: taskId must be a string");
  if (!scope.session) throw notHere();
  const run = scope.core.runs.get(params.taskId);
  if (!run || run.how.kind !== "task") throw invalidParams("Task not found");
  if (run.sessionId !== scope.session.id) throw notHere();
  return run;
}

const view = (run: AsyncRun): Result => (run.how.kind === "task" && run.how.form === "seed" ? seedTask(run) : mcpTask(run));

function untilTerminal(run: AsyncRun, signal: AbortSignal | undefined): Promise<void> {
  if (run.terminal || !signal) return run.whenTerminal();
  if (signal.aborted) return Promise.reject(new RpcError(ErrorCode.InternalError, "Request cancelled"));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(new RpcError(ErrorCode.InternalError, "Request cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    void run.whenTerminal().then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

export const taskMethods = {
  "tasks/get": (params, scope) => view(taskFor(params, scope)),

  "tasks/update"(params, scope) {
    taskFor(params, scope);
    return { resultType: "complete" };
  },

  "tasks/cancel"(params, scope) {
    const run = taskFor(params, scope);
    if (!scope.core.runs.cancel(run)) {
      throw invalidParams(`Cannot cancel task: already in terminal status '${run.status}'`);
    }
    return view(run);
  },

  async "tasks/result"(params, scope) {
    const run = taskFor(params, scope);
    await untilTerminal(run, scope.signal);
    return taskResult(run) as Result;
  },

  "tasks/list"(params, scope) {
    const after = decodeCursor(params.cursor);
    if (!scope.session) return { tasks: [] };
    const runs = scope.core.runs;
    const page = runs.tasksOf(scope.session.id, after, runs.options.listPageSize);
    const result: Result = { tasks: page.tasks.map((run) => mcpTask(run)) };
    const last = page.tasks.at(-1);
    if (page.more && last) result.nextCursor = encodeCursor(last.seq);
    return result;
  },
} satisfies MethodTable;
