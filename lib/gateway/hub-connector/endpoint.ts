// `{publicUrl}/mcp`: one MCP endpoint serving every tool a person may use. Streamable HTTP
// with gateway-minted sessions for 2025-11-25 clients, stateless 2026-07-28 requests, GET
// streams and DELETE. Lists and the built-in search are answered here; every other request
// names a tool (by its exposed name, URI, prompt or task) and is relayed to the caller's
// own tool session (./relay.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import { resolveByName } from "../../federation/resolve.ts";
import { decorateResult } from "../../mcp/stateless/results.ts";
import { isRecord } from "../../util/guards.ts";
import { classify, ErrorCode, failure, isJsonRpcError, JsonRpcError, type JsonRpcRequest } from "../../util/jsonrpc.ts";
import type { Principal } from "../contracts/interfaces.ts";
import { readBody } from "../../http/body.ts";
import { CORS, GatewayError, sendJson } from "../contracts/respond.ts";
import { namedSession, revisionOf } from "../relay/mcp-sessions.ts";
import { replyOf, refused, type Outcome } from "../../mcp/outcome.ts";
import { checkEnvelope } from "../../mcp/stateless/envelope.ts";
import { checkStandardHeaders, headerValue } from "../../mcp/stateless/headers.ts";
import { httpStatus } from "../../http/status.ts";
import type { ConnectorContext } from "./context.ts";
import { discover, initializeResult, listPage, negotiatedVersion, SERVER_INFO } from "./local.ts";
import { TASK_METHODS } from "./messages.ts";
import { prefixTask, unprefixTask } from "./task-ids.ts";
import { SEARCH_TOOL } from "./namespace.ts";
import { JOB_POLL, JOBS_TOOL, notFoundJob, routeJob } from "./jobs.ts";
import { JOB_RESULT_TOOL } from "../../tasks/views.ts";
import { answerTool, forward, notifyTools, standaloneStream } from "./relay.ts";
import { searchResult } from "./search.ts";
import { answerBatch } from "./batch.ts";
import { watchRouted } from "../calls/audit-calls.ts";
import type { ConnectorSession } from "./sessions.ts";
import { postMessage, request as toolRequest } from "../relay/upstream-mcp.ts";

type Result = Record<string, unknown>;

interface Call {
  principal: Principal;
  session: ConnectorSession | undefined;
  stateless: boolean;
  req: IncomingMessage;
  res: ServerResponse;
  extra: Record<string, string>;
}

function accepted(res: ServerResponse): void {
  res.writeHead(202, { ...CORS, "content-length": 0 });
  res.end();
}

function reply(c: Call, id: unknown, method: string, result: Result): void {
  sendJson(c.res, 200, { jsonrpc: "2.0", id, result: c.stateless ? decorateResult(method, result, { serverInfo: SERVER_INFO }) : result }, c.extra);
}

function replyError(c: Call, id: unknown, code: number, message: string): void {
  sendJson(c.res, 200, { jsonrpc: "2.0", id, error: { code, message } }, c.extra);
}

/** The tools a person may use and the tool session a task or name leads to, or a refusal revealing nothing. */
async function routeRequest(cc: ConnectorContext, c: Call, request: JsonRpcRequest): Promise<void> {
  const { method, id } = request;
  const params: Result = isRecord(request.params) ? request.params : {};
  if (method === "ping") return reply(c, id, method, {});
  if (method === "server/discover") return reply(c, id, method, discover());
  const view = await cc.views.get(cc, c.principal);
  const page = listPage(view, method, params, cc.gw.config.connector.pageSize);
  if (page) return reply(c, id, method, page);
  if (method === "tools/call" && params.name === SEARCH_TOOL) return reply(c, id, method, searchResult(view.lists.tools, params.arguments));
  if (method === "logging/setLevel") {
    if (c.session) {
      c.session.logLevel = typeof params.level === "string" ? params.level : undefined;
      await notifyAll(c.session, method, params);
    }
    return reply(c, id, method, {});
  }
  if (method === "tasks/list") return reply(c, id, method, await listTasks(c, params));
  let tool: string;
  let routed: Result;
  let answering: string | undefined;
  if (TASK_METHODS.has(method)) {
    const task = unprefixTask(params.taskId);
    if (!task || !view.labels.has(task.tool)) throw new JsonRpcError(ErrorCode.InvalidParams, "Unknown task");
    tool = task.tool;
    routed = { ...params, taskId: task.taskId };
  } else if (method === "tools/call" && params.name === JOBS_TOOL && view.hasJobs) {
    const job = routeJob(params.arguments);
    // A job of no tool this person may use is one that does not exist, as the poller answers it.
    if (!job || !view.labels.has(job.tool)) return reply(c, id, method, notFoundJob(params.arguments));
    tool = job.tool;
    routed = { ...params, name: JOB_RESULT_TOOL, arguments: { job_id: job.jobId } };
    answering = JOB_POLL;
  } else {
    const resolved = resolveByName(method, params, view);
    if (!resolved) throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    if ("error" in resolved) throw new JsonRpcError(resolved.error.code, resolved.error.message);
    tool = resolved.label;
    routed = resolved.params;
  }
  if (typeof id !== "string" && typeof id !== "number") throw new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: bad id");
  const exposedName = (label: string, name: string) => view.exposedName(label, name);
  const watched = watchRouted(cc.gw, c.principal.user, tool, c.res, method, routed);
  await forward(
    cc,
    { session: c.session, user: c.principal.user, tool, id, method, params: routed, headers: c.req.headers, extra: c.extra, exposedName, answering, watched },
    c.res,
  );
}

/** Requests sent to every tool this client has started, as one JSON-RPC request each. */
async function notifyAll(s: ConnectorSession, method: string, params: Result): Promise<void> {
  await Promise.allSettled(
    (await s.started()).map((link) => toolRequest(link.up, link.session, method, params, { "mcp-protocol-version": s.protocolVersion })),
  );
}

/** Tasks of every tool this client started, their ids prefixed with the tool's name. */
async function listTasks(c: Call, params: Result): Promise<Result> {
  const s = c.session;
  if (!s) return { tasks: [] };
  const { cursor: _ignored, ...rest } = params;
  const lists = await Promise.allSettled(
    (await s.started()).map(async (link) => ({
      link,
      r: (await toolRequest(link.up, link.session, "tasks/list", rest, { "mcp-protocol-version": s.protocolVersion })).result,
    })),
  );
  const tasks: unknown[] = [];
  for (const l of lists) {
    if (l.status !== "fulfilled" || !Array.isArray(l.value.r.tasks)) continue;
    for (const t of l.value.r.tasks) if (isRecord(t) && typeof t.taskId === "string") tasks.push({ ...t, taskId: prefixTask(l.value.link.tool, t.taskId) });
  }
  return { tasks };
}

/**
 * The 2026-07-28 checks the tool server makes before any method runs (lib/mcp): the `_meta`
 * envelope against the version header, and the Mcp-Method/Mcp-Name headers against the body.
 */
function statelessRefusal(req: IncomingMessage, request: JsonRpcRequest): Outcome | null {
  const envelope = checkEnvelope(request.params, headerValue(req.headers, "mcp-protocol-version"));
  if (!envelope.ok) return refused(envelope.refusal, failure(request.id, envelope.error));
  const headers = checkStandardHeaders(req.headers, request.method, request.params);
  return headers.ok ? null : refused(headers.refusal, failure(request.id, headers.error));
}

/** An outcome of lib/mcp under the status lib/http/status.ts gives it. */
function sendOutcome(res: ServerResponse, outcome: Outcome): void {
  sendJson(res, httpStatus(outcome), replyOf(outcome));
}

/** A cancellation of a request not running on this replica: the client was sent to another one meanwhile. */
function runsElsewhere(s: ConnectorSession, message: { method: string; params?: unknown }): boolean {
  return message.method === "notifications/cancelled" && isRecord(message.params) && !s.inflight.has(JSON.stringify(message.params.requestId));
}

/** Every tool the session started hears it: the one running that request cancels it, the others know no such id. */
async function cancelEverywhere(s: ConnectorSession, message: Result): Promise<void> {
  const headers = { "mcp-protocol-version": s.protocolVersion };
  await Promise.allSettled(
    (await s.started()).map(async (link) => (await postMessage(link.up, link.session, message, headers, AbortSignal.timeout(30_000))).resume()),
  );
}

/** initialize params a /mcp session keeps: far above what clients send (capabilities, clientInfo). */
const MAX_INIT_PARAMS_CHARS = 64 * 1024;

async function handlePost(cc: ConnectorContext, principal: Principal, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req, cc.gw.config.limits.maxBodyBytes);
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return sendJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError, message: "Parse error" } });
  }
  const revision = revisionOf(req, value);
  if (revision.kind === "refused") return sendOutcome(res, refused(revision.refusal, failure(null, revision.error)));
  const stateless = revision.kind === "stateless";
  const c: Call = { principal, session: undefined, stateless, req, res, extra: {} };
  if (Array.isArray(value)) {
    await openSession(cc, c);
    const cancel = (requestId: unknown): void => {
      const reason = "The call asked the client in a batch";
      if (c.session) void notifyTools(c.session, { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, reason } });
    };
    return answerBatch(value, req, res, c.extra, (entry, sink) => handleMessage(cc, { ...c, res: sink }, entry, true), cancel);
  }
  const message = classify(value);
  if (message.kind === "request" && message.message.method === "initialize" && !stateless) return initialize(cc, c, message.message);
  // An invalid message is refused as such, session or not.
  if (!stateless && message.kind !== "invalid") await openSession(cc, c);
  return handleMessage(cc, c, value, false);
}

async function initialize(cc: ConnectorContext, c: Call, request: JsonRpcRequest): Promise<void> {
  const params: Result = isRecord(request.params) ? request.params : {};
  // Kept for the session's life (each tool session opens with them): bounded, so a person's
  // hundred sessions cannot hold the body limit a hundred times over.
  if (JSON.stringify(params).length > MAX_INIT_PARAMS_CHARS) {
    return sendJson(c.res, 400, { jsonrpc: "2.0", id: request.id, error: { code: ErrorCode.InvalidParams, message: "initialize params are too large" } });
  }
  const version = negotiatedVersion(params);
  const s = await cc.table.create(c.principal.user, params, version);
  c.extra = { "mcp-session-id": s.id };
  return reply(c, request.id, "initialize", initializeResult(version));
}

async function openSession(cc: ConnectorContext, c: Call): Promise<void> {
  const named = namedSession(c.req);
  if (named === undefined) throw new GatewayError("no_session", "Send initialize first, then the Mcp-Session-Id it answered with");
  c.session = await cc.table.open(named, c.principal.user);
  c.extra = { "mcp-session-id": c.session.id };
}

/** One message after its session is known: alone, or as an entry of a batch (./batch.ts). */
async function handleMessage(cc: ConnectorContext, c: Call, value: unknown, inBatch: boolean): Promise<void> {
  const { res } = c;
  const message = classify(value);
  if (message.kind === "invalid") return sendJson(res, 400, { jsonrpc: "2.0", id: message.id, error: message.error });
  const unfit = c.stateless && message.kind === "request" ? statelessRefusal(c.req, message.message) : null;
  if (unfit) return sendOutcome(res, unfit);
  if (message.kind === "notification") {
    if (c.session) await (runsElsewhere(c.session, message.message) ? cancelEverywhere(c.session, value as Result) : notifyTools(c.session, value as Result));
    return accepted(res);
  }
  if (message.kind === "response") {
    if (c.session) await answerTool(c.session, value as Result);
    return accepted(res);
  }
  const request = message.message;
  try {
    // A session is opened alone: its answer names the session the batch's other messages would need.
    if (inBatch && request.method === "initialize") throw new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request: send initialize alone, not in a batch");
    await routeRequest(cc, c, request);
  } catch (err) {
    if (isJsonRpcError(err)) return replyError(c, request.id, err.code, err.message);
    throw err;
  }
}

async function handleDelete(cc: ConnectorContext, principal: Principal, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const named = namedSession(req);
  if (named === undefined) throw new GatewayError("no_session", "DELETE needs the Mcp-Session-Id header");
  await cc.table.delete(await cc.table.open(named, principal.user));
  res.writeHead(204, { ...CORS });
  res.end();
}

/** Serves one request to /mcp from an authenticated caller. */
export async function handleConnector(cc: ConnectorContext, principal: Principal, req: IncomingMessage, res: ServerResponse): Promise<void> {
  switch (req.method) {
    case "POST":
      return handlePost(cc, principal, req, res);
    case "GET": {
      const named = namedSession(req);
      if (named === undefined)
        throw new GatewayError("method_not_allowed", "GET needs the Mcp-Session-Id of an initialized session", { allow: "POST, DELETE" });
      return standaloneStream(cc, await cc.table.open(named, principal.user), res);
    }
    case "DELETE":
      return handleDelete(cc, principal, req, res);
    default:
      throw new GatewayError("method_not_allowed", "Use GET, POST or DELETE", { allow: "GET, POST, DELETE" });
  }
}
