// `tasks/*` (MCP 2025-11-25 basic/utilities/tasks). A task answers in the form it was
// created in: the seed form or MCP 2025-11-25's.
import type { Call } from "../mcp/exchange.ts";
import { invalidParams } from "../mcp/errors.ts";
import { decodeCursor, encodeCursor } from "../mcp/methods/paginate.ts";
import type { MethodTable, Result } from "../mcp/methods/types.ts";
import { ErrorCode, JsonRpcError } from "../util/jsonrpc.ts";
import type { AsyncRun } from "./run.ts";
import type { AsyncStore } from "./store.ts";
import { mcpTask, seedTask, taskResult } from "./views.ts";

const notHere = (): JsonRpcError => new JsonRpcError(ErrorCode.NotAvailable, "Task is not available in this session");

/** The caller's task: -32003 without a session or from another live session, -32602 when unknown or expired. */
function taskFor(runs: AsyncStore, params: Record<string, unknown>, call: Call): AsyncRun {
  if (typeof params.taskId !== "string") throw invalidParams("Invalid params: taskId must be a string");
  if (!call.session) throw notHere();
  const run = runs.get(params.taskId);
  if (!run || run.how.kind !== "task") throw invalidParams("Task not found");
  // A run read back after a restart outlived its session: its unguessable id is what opens it.
  if (run.sessionId !== call.session.id && !run.restored) throw notHere();
  return run;
}

// A restored stateless task read through a session answers in the seed form, like the seed form it was recorded as before.
const view = (run: AsyncRun): Result => (run.how.kind === "task" && run.how.form !== "mcp" ? seedTask(run) : mcpTask(run));

function untilTerminal(run: AsyncRun, signal: AbortSignal | undefined): Promise<void> {
  if (run.terminal || !signal) return run.whenTerminal();
  if (signal.aborted) return Promise.reject(new JsonRpcError(ErrorCode.InternalError, "Request cancelled"));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(new JsonRpcError(ErrorCode.InternalError, "Request cancelled"));
    signal.addEventListener("abort", onAbort, { once: true });
    void run.whenTerminal().then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

export function taskMethods(runs: AsyncStore): MethodTable {
  return {
    "tasks/get": (params, call) => view(taskFor(runs, params, call)),

    "tasks/update"(params, call) {
      taskFor(runs, params, call);
      return { resultType: "complete" };
    },

    "tasks/cancel"(params, call) {
      const run = taskFor(runs, params, call);
      if (!runs.cancel(run)) throw invalidParams(`Cannot cancel task: already in terminal status '${run.status}'`);
      return view(run);
    },

    async "tasks/result"(params, call) {
      const run = taskFor(runs, params, call);
      await untilTerminal(run, call.signal);
      return taskResult(run) as Result;
    },

    "tasks/list"(params, call) {
      const after = decodeCursor(params.cursor);
      if (!call.session) return { tasks: [] };
      const page = runs.tasksOf(call.session.id, after, runs.options.listPageSize);
      const result: Result = { tasks: page.tasks.map((run) => mcpTask(run)) };
      const last = page.tasks.at(-1);
      if (page.more && last) result.nextCursor = encodeCursor(last.seq);
      return result;
    },
  };
}
