// /mcp's method table, served by lib/mcp's dispatcher (2025-11-25 sessions) and stateless
// server (2026-07-28) as a tool server's is: initialize, discovery and the merged lists are
// answered here; the relay's moves (search, resolution, tasks by id, `logging/setLevel` and
// `tasks/list` for every started tool) are the federation's (../../federation/route-moves.ts)
// over the caller's tool sessions (./link-routing.ts); a method naming a tool (by its exposed
// name, URI, prompt, task or job) is relayed to the caller's own tool session (./relay.ts).
import { TASK_METHODS } from "../../federation/ids.ts";
import { routeOf, searchOf, setLevelEverywhere, tasksOfAll } from "../../federation/route-moves.ts";
import { ClientRequests } from "../../mcp/client-requests.ts";
import type { ServerCore } from "../../mcp/core.ts";
import { Dispatcher, type MessageHandlers } from "../../mcp/dispatcher.ts";
import type { Call } from "../../mcp/exchange.ts";
import { type Method, type MethodTable, NO_ANSWER, type Result } from "../../mcp/methods/types.ts";
import type { Protocol } from "../../mcp/protocol.ts";
import { REMOVED_METHODS } from "../../mcp/stateless/envelope.ts";
import { StatelessServer, type StatelessMethod } from "../../mcp/stateless/serve.ts";
import { ResourceSubscriptions } from "../../mcp/subscriptions.ts";
import { DEFAULT_MAX_BATCH_SIZE } from "../../server-options.ts";
import { JOB_RESULT_TOOL } from "../../tasks/views.ts";
import { ErrorCode, JsonRpcError } from "../../util/jsonrpc.ts";
import type { Logger } from "../../util/logger.ts";
import { type RoutedEnd, watchRouted } from "../calls/audit-calls.ts";
import { knownFailure } from "../contracts/respond.ts";
import type { ConnectorContext } from "./context.ts";
import type { Door } from "./door.ts";
import { JOB_POLL, JOBS_TOOL, notFoundJob, routeJob } from "./jobs.ts";
import { discover, initializeResult, listPage, negotiatedVersion, SERVER_INFO } from "./local.ts";
import { linkRouting } from "./link-routing.ts";
import { answerTool, forward, notifyTools } from "./relay.ts";

/** Every method here runs on a POST to /mcp, whose exchange is its Door (scoped by lib/mcp for a stateless request). */
const doorOf = (call: Call): Door => (call.exchange.via ?? call.exchange) as Door;

/**
 * A gateway refusal (a coded GatewayError: the person's running bound, an unknown tool, the
 * store away) is a JSON-RPC error in a batch or a stream, and keeps its own status alone (./endpoint.ts).
 */
function guarded(fn: Method): Method {
  return async (params, call) => {
    try {
      return await fn(params, call);
    } catch (err) {
      const known = knownFailure(err);
      if (!known) throw err;
      doorOf(call).failed ??= known;
      throw new JsonRpcError(ErrorCode.InternalError, known.message);
    }
  };
}

async function initialize(params: Result, call: Call): Promise<Result> {
  const door = doorOf(call);
  // A session is opened alone: its answer names the session the batch's other messages would need.
  if (door.batch) throw new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: send initialize alone, not in a batch");
  const version = negotiatedVersion(params);
  const s = await door.cc.table.create(door.principal.user, params, version);
  door.connector = s;
  door.extra["mcp-session-id"] = s.id;
  return initializeResult(version);
}

async function list(params: Result, call: Call, method: string): Promise<Result> {
  const { cc, principal } = doorOf(call);
  const view = await cc.views.get(cc, principal);
  return listPage(view, method, params, cc.gw.config.connector.pageSize)!;
}

/** In a session only: 2026-07-28 has no logging/setLevel (nor tasks/list, below). */
async function setLevel(params: Result, call: Call): Promise<Result> {
  const { cc, principal, connector } = doorOf(call);
  connector!.logLevel = typeof params.level === "string" ? params.level : undefined;
  return setLevelEverywhere(linkRouting(connector!, await cc.views.get(cc, principal)), params);
}

async function listTasks(params: Result, call: Call): Promise<Result> {
  const { cc, principal, connector } = doorOf(call);
  return tasksOfAll(linkRouting(connector!, await cc.views.get(cc, principal)), params);
}

/** The tool a request goes to and the params it carries there, or a refusal revealing nothing. */
async function relayed(method: string, params: Result, call: Call): Promise<Result> {
  const door = doorOf(call);
  const { cc, principal } = door;
  const view = await cc.views.get(cc, principal);
  // Searched over the person's cached view: the tools they may list, as they list them.
  const searched = searchOf(method, params, () => view.lists.tools);
  if (searched) return searched;
  let tool: string;
  let routed: Result;
  let answering: string | undefined;
  if (method === "tools/call" && params.name === JOBS_TOOL && view.hasJobs) {
    const job = routeJob(params.arguments);
    // A job of no tool this person may use is one that does not exist, as the poller answers it.
    if (!job || !view.labels.has(job.tool)) return notFoundJob(params.arguments);
    tool = job.tool;
    routed = { ...params, name: JOB_RESULT_TOOL, arguments: { job_id: job.jobId } };
    answering = JOB_POLL;
  } else {
    const resolved = routeOf(method, params, view)!;
    if ("error" in resolved) throw new JsonRpcError(resolved.error.code, resolved.error.message);
    tool = resolved.label;
    routed = resolved.params;
  }
  const user = principal.user;
  const watched = watchRouted(cc.gw, user, tool, door.req, method, routed);
  const exposedName = (label: string, name: string) => view.exposedName(label, name);
  const r = { session: door.connector, user, tool, id: call.id, method, params: routed, headers: door.req.headers, exposedName, answering, watched };
  try {
    const answer = await forward(cc, r, door);
    // A batch holds its answers until its last one: bounded together (./door.ts).
    if (door.batch && !door.hold(answer.bytes())) {
      throw new JsonRpcError(ErrorCode.InvalidRequest, "The answer is too large to be held in a batch: send this call alone");
    }
    watched?.end({ status: answer.result === NO_ANSWER ? 202 : 200, bytesOut: answer.bytes() });
    return answer.result;
  } catch (err) {
    watched?.end(failedEnd(door, err));
    throw err;
  }
}

/**
 * How a relayed entry that threw ended: a client gone before its answer (499), a gateway
 * refusal under its own status; a JSON-RPC error is carried in an answer (200), as on the
 * per-tool routes, where an outcome follows the status.
 */
function failedEnd(door: Door, err: unknown): RoutedEnd {
  const gone = door.res.destroyed && !door.res.writableFinished;
  const status = gone ? 499 : (knownFailure(err)?.status ?? 200);
  return { status, bytesOut: 0 };
}

const LISTS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];
const ROUTED = ["tools/call", "prompts/get", "resources/read", "resources/subscribe", "resources/unsubscribe", "completion/complete", ...TASK_METHODS];

function methodTable(): MethodTable {
  const table: MethodTable = {
    initialize,
    ping: () => ({}),
    "server/discover": () => discover(),
    "logging/setLevel": setLevel,
    "tasks/list": listTasks,
  };
  for (const name of LISTS) table[name] = (params, call) => list(params, call, name);
  for (const name of ROUTED) table[name] = (params, call) => relayed(name, params, call);
  for (const name in table) table[name] = guarded(table[name]!);
  return table;
}

/** A client's notifications go to its tools, its answers to the tool that asked; spans are the gateway's own (../relay/trace.ts). */
const HANDLERS: MessageHandlers = {
  spans: false,
  // Only a message in a /mcp session reaches them: a stateless request is served without.
  notification: async (message, exchange) => {
    await notifyTools((exchange as Door).connector!, message.method, message.params);
  },
  response: (message, exchange) => answerTool((exchange as Door).connector!, message as unknown as Result),
};

/** What lib/mcp needs of a server: /mcp registers nothing of its own, its tools are the tools'. */
function connectorCore(logger: Logger): ServerCore {
  return {
    info: SERVER_INFO,
    instructions: undefined,
    tools: new Map(),
    resources: new Map(),
    prompts: new Map(),
    templates: new Map(),
    pageSize: 1,
    maxBatchSize: DEFAULT_MAX_BATCH_SIZE,
    clientRequests: new ClientRequests(),
    subscriptions: new ResourceSubscriptions(),
    logger,
  };
}

/** A method that failed unexpectedly is an event of the gateway's, as its other failures. */
function eventLogger(event: ConnectorContext["event"]): Logger {
  const ignore = (): void => {};
  return { debug: ignore, info: ignore, warn: ignore, error: (message, fields) => event(message, { ...fields }) };
}

/** /mcp's protocol: the method table under both revisions, those 2026-07-28 removed left out of it. */
export function connectorProtocol(event: ConnectorContext["event"]): Protocol {
  const core = connectorCore(eventLogger(event));
  const table = methodTable();
  const own: Record<string, StatelessMethod> = {};
  for (const [name, fn] of Object.entries(table)) if (!REMOVED_METHODS.has(name)) own[name] = (params, call) => fn(params, call);
  return { session: new Dispatcher(core, table, undefined, HANDLERS), stateless: new StatelessServer(core, {}, {}, own) };
}
