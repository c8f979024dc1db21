// Async tools for MCP 2026-07-28 clients: the `io.modelcontextprotocol/tasks` extension.
// A client that declares the extension on its request gets a task (a flat CreateTaskResult)
// and polls it with tasks/get; questions the running handler asks wait in the run
// (`input_required`) until tasks/update answers them. A client without the extension gets
// the result in-line, unless the tool requires a task (-32021).
import { Context, progressTokenOf } from "../mcp/context.ts";
import type { Call, Exchange, StatelessScope } from "../mcp/exchange.ts";
import { RoundEndedError, type InputMethod } from "../mcp/stateless/input-required.ts";
import { checkTasksMethod, createTaskResult, detailedTask, taskAck, taskDispatch, unknownTask } from "../mcp/stateless/tasks.ts";
import type { StatelessErrorBody } from "../mcp/stateless/errors.ts";
import type { Method, MethodTable, Result } from "../mcp/methods/types.ts";
import type { RegisteredTool } from "../registry/tools.ts";
import { describeErrors } from "../mcp/run-tool.ts";
import { isRecord } from "../util/guards.ts";
import { ErrorCode, JsonRpcError } from "../util/jsonrpc.ts";
import { executeTool } from "./execute.ts";
import type { AsyncRun, Settled } from "./run.ts";
import type { AsyncStore } from "./store.ts";
import { statelessTask } from "./views.ts";

const refuse = (error: StatelessErrorBody): JsonRpcError => new JsonRpcError(error.code, error.message, error.data);

/** The exchange a task's context talks through: no session, the task's signal, questions to its run. */
function taskExchange(call: Call, run: AsyncRun): Exchange {
  const scope = call.exchange.stateless;
  const ask = (method: InputMethod, params: Record<string, unknown>, key?: string): Promise<unknown> => run.inputs!.ask({ method, params }, key);
  const stateless: StatelessScope = scope?.logLevel === undefined ? { ask } : { ask, logLevel: scope.logLevel };
  return {
    session: null,
    signal: run.signal,
    clientCapabilities: call.exchange.clientCapabilities,
    stateless,
    send: (message) => !run.terminal && call.send(message),
  };
}

/** Starts a stateless task running `execute`; its questions wait in the run (`run.inputs`). */
function start(runs: AsyncStore, call: Call, tool: RegisteredTool, execute: (run: AsyncRun) => Promise<Settled>): AsyncRun {
  const started = runs.start({
    how: { kind: "task", form: "stateless" },
    session: null,
    toolName: tool.name,
    clientCapabilities: call.clientCapabilities,
    execute,
  });
  if (!started.ok) throw new JsonRpcError(ErrorCode.InternalError, started.message);
  return started.run;
}

/**
 * `tools/call` of an async tool from a 2026-07-28 client. `inline` answers a client without
 * the extension (the shared tools/call, which replays questions as rounds).
 */
export async function statelessToolCall(runs: AsyncStore, call: Call, tool: RegisteredTool, params: Record<string, unknown>, inline: Method): Promise<Result> {
  const how = taskDispatch(tool.taskSupport, call.clientCapabilities);
  if (how.kind === "refuse") throw refuse(how.error);
  if (how.kind === "inline") return inline(params, call);
  const args = isRecord(params.arguments) ? params.arguments : {};
  // Refused before a task exists, as for the other task forms (./plugin.ts).
  const check = tool.validateInput(args);
  if (!check.valid) throw new JsonRpcError(ErrorCode.InvalidParams, describeErrors("Invalid arguments", check.errors));
  const token = progressTokenOf(params);
  if (tool.inputBeforeTask && tool.contextBearing) return gatherThenStart(runs, call, tool, args, token);
  const run = start(runs, call, tool, (r) => {
    const hooks = { onTaskMetadata: (entries: Record<string, unknown>) => runs.setHandle(r, entries) };
    const ctx = tool.contextBearing ? new Context(call.through(taskExchange(call, r)), token, hooks) : undefined;
    return executeTool(tool, args, ctx, call.core.logger);
  });
  return createTaskResult(statelessTask(run));
}

/**
 * `inputBeforeTask`: the handler first runs inside the request's input_required round, and
 * the round's answers decide, with no timer, when it becomes the task (tasks extension, "Task
 * Creation": MRTR exchanges are resolved before the CreateTaskResult). An unanswered
 * question ends the round (input_required); the first question answered from the round's
 * answers makes this running handler the task, so any later unanswered question waits in
 * the task; a handler that ends first is a task that has already ended.
 */
async function gatherThenStart(
  runs: AsyncStore,
  call: Call,
  tool: RegisteredTool,
  args: Record<string, unknown>,
  token: string | number | undefined,
): Promise<Result> {
  const round = call.exchange.stateless;
  const controller = new AbortController();
  let run: AsyncRun | null = null;
  let ended: unknown = null;
  // A handle attached before the handler becomes a task waits for its run.
  let early: Record<string, unknown> | null = null;
  // The handler's outcome, handed to the run whenever it is made (possibly before `done` exists).
  let settle!: (settled: Promise<Settled>) => void;
  const outcome = new Promise<Settled>((resolve) => (settle = resolve));
  // Without a run (the round ended, or a missing capability refused the call) nobody awaits it.
  outcome.catch(() => {});
  let promoted!: () => void;
  const promotion = new Promise<"task">((resolve) => (promoted = () => resolve("task")));
  const promote = (): AsyncRun => {
    if (run) return run;
    const made = start(runs, call, tool, () => outcome);
    made.signal.addEventListener("abort", () => controller.abort(made.signal.reason), { once: true });
    if (early) runs.setHandle(made, early);
    promoted();
    return (run = made);
  };
  const asking = (method: InputMethod, params: Record<string, unknown>, key?: string): Promise<unknown> => {
    if (ended) return Promise.reject(ended);
    if (round?.ask && round.answered?.(method, key)) {
      const answer = round.ask(method, params, key);
      promote();
      return answer;
    }
    if (run) return run.inputs!.ask({ method, params }, key);
    if (!round?.ask) return promote().inputs!.ask({ method, params }, key);
    // Unanswered before the task exists: the round ends with input_required and this handler is abandoned.
    return round.ask(method, params, key).catch((err: unknown) => {
      if (err instanceof RoundEndedError) {
        ended = err;
        controller.abort(err);
      }
      throw err;
    });
  };
  const exchange: Exchange = {
    session: null,
    signal: controller.signal,
    clientCapabilities: call.exchange.clientCapabilities,
    stateless: { ask: asking },
    send: (message) => !run?.terminal && call.send(message),
  };
  const onTaskMetadata = (entries: Record<string, unknown>): boolean => {
    if (run) return runs.setHandle(run, entries);
    early = { ...early, ...entries };
    return true;
  };
  const ctx = new Context(call.through(exchange), token, { onTaskMetadata });
  const done = executeTool(tool, args, ctx, call.core.logger);
  settle(done);
  await Promise.race([done, promotion]);
  // The round answered input_required already; this handler's end reaches nobody.
  if (ended && !run) throw ended;
  return createTaskResult(statelessTask(promote()));
}

function taskOf(runs: AsyncStore, params: Record<string, unknown>, call: Call): AsyncRun {
  const refused = checkTasksMethod(call.clientCapabilities);
  if (refused) throw refuse(refused);
  const run = runs.get(params.taskId);
  if (!run || run.how.kind !== "task" || run.how.form !== "stateless") throw refuse(unknownTask());
  return run;
}

/**
 * tasks/get, tasks/update and tasks/cancel of the extension (tasks/result and tasks/list do
 * not exist there): the 2026 table's own methods, in it from the start (see ../server.ts).
 */
export function statelessTaskMethods(runs: AsyncStore): MethodTable {
  return {
    "tasks/get": (params, call) => detailedTask(statelessTask(taskOf(runs, params, call))),
    "tasks/update"(params, call) {
      const run = taskOf(runs, params, call);
      // A run read back after a restart has ended: its questions are gone, the answers change nothing.
      const answered = run.inputs!.answer(params.inputResponses);
      if (!answered.ok) throw refuse(answered.error);
      return taskAck();
    },
    "tasks/cancel"(params, call) {
      // Idempotent: cancelling a task that already ended is acknowledged and changes nothing.
      runs.cancel(taskOf(runs, params, call));
      return taskAck();
    },
  };
}
