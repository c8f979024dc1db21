// Async tools for MCP 2026-07-28 clients: the `io.modelcontextprotocol/tasks` extension.
// A client that declares the extension on its request gets a task (a flat CreateTaskResult)
// and polls it with tasks/get; questions the running handler asks wait in the task
// (`input_required`) until tasks/update answers them. A client without the extension gets
// the result in-line, unless the tool requires a task (-32021).
import { Context, progressTokenOf } from "../mcp/context.ts";
import type { Call, Exchange, StatelessScope } from "../mcp/exchange.ts";
import type { InputMethod } from "../mcp/era2026/input-required.ts";
import type { StatelessServer } from "../mcp/era2026/serve.ts";
import { TaskInputs } from "../mcp/era2026/task-inputs.ts";
import { checkTasksMethod, createTaskResult, detailedTask, taskAck, taskDispatch, unknownTask, type TaskSnapshot } from "../mcp/era2026/tasks.ts";
import type { Era2026ErrorBody } from "../mcp/era2026/errors.ts";
import type { Method, Result } from "../mcp/methods/types.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import { isRecord } from "../util/guards.ts";
import { ErrorCode, JsonRpcError } from "../util/jsonrpc.ts";
import { executeTool } from "./execute.ts";
import type { AsyncRun, Settled } from "./run.ts";
import type { AsyncStore } from "./store.ts";
import { handleMeta } from "./views.ts";

/** What a 2026 task keeps beside its run: its pending questions, and a protocol-level failure. */
interface TaskExtras {
  inputs: TaskInputs;
  error?: { code: number; message: string; data?: unknown };
}

const extras = new WeakMap<AsyncRun, TaskExtras>();

const refuse = (error: Era2026ErrorBody): JsonRpcError => new JsonRpcError(error.code, error.message, error.data);

/** The run as the extension reports it: a tool error is a completed task, a protocol error a failed one. */
function snapshot(run: AsyncRun, more: TaskExtras): TaskSnapshot {
  const error = more.error ?? run.protocolError ?? undefined;
  let status: TaskSnapshot["status"] = run.status;
  if (status === "failed" && !error) status = "completed";
  const snap: TaskSnapshot = {
    taskId: run.id,
    status,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    ttlMs: run.ttlMs,
    pollIntervalMs: run.pollIntervalMs,
  };
  if (status === "completed" && run.settled) snap.result = run.settled.result as unknown as Record<string, unknown>;
  if (status === "failed" && error) snap.error = error;
  if (status === "input_required") snap.inputRequests = more.inputs.pending();
  const { _meta } = handleMeta(run);
  if (_meta) snap.meta = _meta;
  return snap;
}

/** A handler failure that carries a numeric JSON-RPC code is the server's failure, not the tool's. */
function protocolErrorOf(err: unknown): TaskExtras["error"] | undefined {
  if (!(err instanceof Error) || typeof (err as { code?: unknown }).code !== "number") return undefined;
  const code = (err as unknown as { code: number }).code;
  return Number.isSafeInteger(code) ? { code, message: err.message || "Task failed" } : undefined;
}

/** The tool, with protocol-level failures of its handler recorded on `more` before runTool shapes them. */
function recording(tool: RegisteredTool, more: TaskExtras): RegisteredTool {
  return {
    ...tool,
    async call(args, ctx) {
      try {
        return await tool.call(args, ctx);
      } catch (err) {
        more.error ??= protocolErrorOf(err);
        throw err;
      }
    },
  };
}

/** The exchange a task's context talks through: no session, the task's signal, questions to `ask`. */
function taskExchange(call: Call, run: AsyncRun, ask: NonNullable<StatelessScope["ask"]>): Exchange {
  const scope = call.exchange.stateless;
  const stateless: StatelessScope = scope?.logLevel === undefined ? { ask } : { ask, logLevel: scope.logLevel };
  return {
    session: null,
    signal: run.signal,
    clientCapabilities: call.exchange.clientCapabilities,
    stateless,
    send: (message) => !run.terminal && call.send(message),
  };
}

/** Starts the run; `more` is made here unless the caller already holds it (its inputs follow the run). */
function start(runs: AsyncStore, call: Call, tool: RegisteredTool, execute: (run: AsyncRun, more: TaskExtras) => Promise<Settled>, held?: TaskExtras): AsyncRun {
  let current: AsyncRun | undefined;
  const more = held ?? { inputs: new TaskInputs(call.clientCapabilities, () => current?.setInputRequired(more.inputs.waiting, runs.now())) };
  const started = runs.start({
    how: { kind: "task", form: "seed" },
    session: null,
    toolName: tool.name,
    execute(run) {
      current = run;
      extras.set(run, more);
      // The protocol-level failure is kept on the run too, so the state directory records it.
      return execute(run, more).then((settled) => {
        if (more.error) run.protocolError = more.error;
        return settled;
      });
    },
  });
  if (!started.ok) throw new JsonRpcError(ErrorCode.InternalError, started.message);
  const { run } = started;
  void run.whenTerminal().then(() => more.inputs.close(new Error("The task ended")));
  return run;
}

const ask = (inputs: TaskInputs) => (method: InputMethod, params: Record<string, unknown>, key?: string) => inputs.ask({ method, params }, key);

/**
 * `tools/call` of an async tool from a 2026-07-28 client. `inline` answers a client without
 * the extension (the shared tools/call, which replays questions as rounds).
 */
export async function statelessToolCall(runs: AsyncStore, call: Call, tool: RegisteredTool, params: Record<string, unknown>, inline: Method): Promise<Result> {
  const how = taskDispatch(tool.taskSupport, call.clientCapabilities);
  if (how.kind === "refuse") throw refuse(how.error);
  if (how.kind === "inline") return inline(params, call);
  const args = isRecord(params.arguments) ? params.arguments : {};
  const token = progressTokenOf(params);
  if (tool.inputBeforeTask && tool.contextBearing) return gatherThenStart(runs, call, tool, args, token);
  const run = start(runs, call, tool, (r, more) => {
    const hooks = { onTaskMetadata: (entries: Record<string, unknown>) => runs.setHandle(r, entries) };
    const ctx = tool.contextBearing ? new Context(call.through(taskExchange(call, r, ask(more.inputs))), token, hooks) : undefined;
    return executeTool(recording(tool, more), args, ctx, call.core.logger);
  });
  return createTaskResult(snapshot(run, extras.get(run)!));
}

/**
 * The handler first runs inside the request's input_required round: answered questions
 * resolve at once, an unanswered one ends the round. Once the handler is still running one
 * macrotask later with nothing unanswered, the same running handler becomes the task and
 * any later question waits in it.
 */
async function gatherThenStart(runs: AsyncStore, call: Call, tool: RegisteredTool, args: Record<string, unknown>, token: string | number | undefined): Promise<Result> {
  const roundAsk = call.exchange.stateless?.ask;
  let promoted: AsyncRun | null = null;
  const more: TaskExtras = { inputs: new TaskInputs(call.clientCapabilities, () => promoted?.setInputRequired(more.inputs.waiting, runs.now())) };
  let unanswered = 0;
  const switching = (method: InputMethod, params: Record<string, unknown>, key?: string): Promise<unknown> => {
    if (promoted || !roundAsk) return more.inputs.ask({ method, params }, key);
    unanswered++;
    return roundAsk(method, params, key).finally(() => unanswered--);
  };
  const controller = new AbortController();
  const exchange: Exchange = {
    session: null,
    signal: controller.signal,
    clientCapabilities: call.exchange.clientCapabilities,
    stateless: { ask: switching },
    send: (message) => call.send(message),
  };
  // A handle attached before the handler becomes a task waits for its run.
  let early: Record<string, unknown> | null = null;
  const onTaskMetadata = (entries: Record<string, unknown>): boolean => {
    if (promoted) return runs.setHandle(promoted, entries);
    early = { ...early, ...entries };
    return true;
  };
  const ctx = new Context(call.through(exchange), token, { onTaskMetadata });
  const done = executeTool(recording(tool, more), args, ctx, call.core.logger);
  const first = await Promise.race([done.then((settled) => settled), new Promise<null>((resolve) => setImmediate(() => resolve(null)))]);
  // A question is still unanswered: the round ends with input_required and this handler is abandoned.
  if (first === null && unanswered > 0) {
    controller.abort(new Error("The round ended"));
    return new Promise<never>(() => {});
  }
  const run = start(
    runs,
    call,
    tool,
    (r) => {
      r.signal.addEventListener("abort", () => controller.abort(r.signal.reason), { once: true });
      return done;
    },
    more,
  );
  promoted = run;
  if (early) runs.setHandle(run, early);
  return createTaskResult(snapshot(run, extras.get(run)!));
}

function taskOf(runs: AsyncStore, params: Record<string, unknown>, call: Call): { run: AsyncRun; more: TaskExtras } {
  const refused = checkTasksMethod(call.clientCapabilities);
  if (refused) throw refuse(refused);
  const run = runs.get(params.taskId);
  const more = run ? (extras.get(run) ?? restoredExtras(run, call)) : undefined;
  if (!run || !more) throw refuse(unknownTask());
  return { run, more };
}

/** A 2026 task read back after a restart (tasks of that form are the session-less ones): finished, so no questions wait. */
function restoredExtras(run: AsyncRun, call: Call): TaskExtras | undefined {
  if (!run.restored || run.sessionId !== null || run.how.kind !== "task") return undefined;
  const more: TaskExtras = { inputs: new TaskInputs(call.clientCapabilities, () => {}) };
  more.inputs.close(new Error("The task ended"));
  extras.set(run, more);
  return more;
}

/** tasks/get, tasks/update and tasks/cancel of the extension; tasks/result and tasks/list do not exist there. */
export function registerStatelessTasks(stateless: StatelessServer, runs: AsyncStore): void {
  stateless.addMethod("tasks/get", (params, call) => {
    const { run, more } = taskOf(runs, params, call);
    return detailedTask(snapshot(run, more));
  });
  stateless.addMethod("tasks/update", (params, call) => {
    const { more } = taskOf(runs, params, call);
    const answered = more.inputs.answer(params.inputResponses);
    if (!answered.ok) throw refuse(answered.error);
    return taskAck();
  });
  stateless.addMethod("tasks/cancel", (params, call) => {
    const { run, more } = taskOf(runs, params, call);
    // Idempotent: cancelling a task that already ended is acknowledged and changes nothing.
    if (runs.cancel(run)) more.inputs.close(new Error("The task was cancelled"));
    return taskAck();
  });
}
