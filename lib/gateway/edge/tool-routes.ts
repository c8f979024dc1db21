// The routes under /api/mcp/{tool}, once the caller is known and allowed: JSON-RPC (with
// gateway sessions), the session bootstrap, the legacy connection info, the REST tool
// route and the OpenAPI document. Each picks the tool session, forwards, and relays.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { rewriteCost, untilSent } from "../relay/answer-budget.ts";
import { corsWith, isEventStream, openStream, relay, sendRewritten, type Outgoing } from "../relay/forward.ts";
import { parseAccept } from "../../http/accept.ts";
import { formatEvent } from "../../http/sse.ts";
import { isStateless, namedSession } from "../relay/mcp-sessions.ts";
import { readBody } from "../../http/body.ts";
import { GatewayError, sendJson, sendParseError } from "../contracts/respond.ts";
import { inspectRequest, mayActOn, passedOn, rewriteEvents, rewriteResult, type ParsedMessage } from "../relay/rewrite.ts";
import { checkSharedUse, EVERYONE, isShared } from "../tool-sessions/isolation.ts";
import { toolSessionKey } from "../tool-sessions/records.ts";
import { MCP_ACCEPT } from "../relay/upstream-mcp.ts";
import { sessionProxyCookie } from "./session-proxy-cookie.ts";
import { consoleLinkFields } from "./console-ticket.ts";
import { andThen } from "../../util/maybe-async.ts";
import { continueTrace, errorTypeOf, gatewaySpan, restTrace, type TracedRequest } from "../relay/trace.ts";
import type { OpenSpan } from "../../telemetry/span.ts";
import { watchRest, watchRpc, type WatchedCall } from "../calls/audit-calls.ts";
import {
  type Caller,
  type Continued,
  continueOrStart,
  exchange,
  forwardedHeaders,
  type GatewayContext,
  holdShared,
  mint,
  resourcePrefix,
  revisionOf,
  toolPath,
  upstreamOf,
  usedShared,
  vouchedFor,
} from "../calls/tool-call.ts";

async function rpc(
  ctx: GatewayContext,
  c: Caller,
  req: IncomingMessage,
  res: ServerResponse,
  pathSession: string | undefined,
  autoSession: boolean,
): Promise<void> {
  const body = await readBody(req, ctx.config.limits.maxBodyBytes);
  const prefix = resourcePrefix(ctx, c.tool);
  // A traced request is read whole: its span is named by its method, and its _meta carries the gateway's span on.
  const tracing = ctx.tracer.active;
  // The audit trail names what was called, so it reads the body as tracing does.
  const naming = tracing || ctx.audit.active;
  const msg = naming || mayActOn(body, req.headers["content-type"]) ? inspectRequest(body, prefix, tracing, naming) : passedOn(body);
  if (!msg) {
    sendParseError(res);
    return;
  }
  const traced = continueTrace(ctx.tracer, req.headers, msg);
  const span = tracing ? gatewaySpan(ctx.tracer, traced.trace, msg) : null;
  const watched = watchRpc(ctx, c, res, msg, body);
  if (watched && tracing) watched.traceId = traced.trace.traceId;
  let answered: number;
  try {
    answered = await startOrContinue(ctx, c, req, res, pathSession, autoSession, msg, traced, span, watched);
  } catch (err) {
    span?.end(errorTypeOf(err));
    throw err;
  }
  span?.end(answered >= 400 ? String(answered) : undefined);
}

/** Finds or starts the tool session the request goes to, then forwards it; the answer's status. */
async function startOrContinue(
  ctx: GatewayContext,
  c: Caller,
  req: IncomingMessage,
  res: ServerResponse,
  pathSession: string | undefined,
  autoSession: boolean,
  msg: ParsedMessage,
  traced: TracedRequest,
  span: OpenSpan | null,
  watched: WatchedCall | undefined,
): Promise<number> {
  const stateless = isStateless(req);
  // Refused before any tool session starts for it.
  if (stateless) checkSharedUse(isShared(ctx.config, c.tool, revisionOf(c)), { stateless, inSession: false });
  const found = stateless
    ? andThen(ctx.sessions.acquireNow(c.principal.user, c.tool, revisionOf(c)), (rec): Continued => ({ rec }))
    : continueOrStart(ctx, c, req, pathSession);
  let s = found instanceof Promise ? await found : found;
  if (!stateless && s.id === undefined && autoSession && !msg.initialize) s = await mint(ctx, c, s.rec);
  checkSharedUse(s.rec.user === EVERYONE, { stateless, inSession: msg.initialize || !!s.upstream });
  span?.set("mcp.session.id", s.id);
  if (watched) watched.revision = s.rec.revision;
  const hold = msg.initialize ? holdShared(ctx, c, s.rec) : undefined;
  // An initialize opens a new upstream session, named in its answer, as for any MCP client:
  // a server may refuse a second initialize on a session (the official SDK's does).
  const session = msg.initialize ? undefined : s.upstream;
  return forwardRpc(ctx, c, res, s, msg, forwardedHeaders(req, msg), traced, session, hold);
}

/** The POST on to the tool server and its answer back; the answer's status. */
async function forwardRpc(
  ctx: GatewayContext,
  c: Caller,
  res: ServerResponse,
  s: Continued,
  msg: ParsedMessage,
  headers: IncomingHttpHeaders,
  traced: TracedRequest,
  session: string | undefined,
  hold: (() => void) | undefined,
): Promise<number> {
  const shared = s.rec.user === EVERYONE;
  // Answers the gateway rewrites may come as JSON or as a stream (../relay/rewrite.ts reads both).
  const out: Outgoing = {
    method: "POST",
    path: "mcp",
    headers,
    body: traced.body,
    trace: traced.fields,
    session,
    accept: msg.rewrite ? MCP_ACCEPT : undefined,
  };
  let answer: IncomingMessage;
  let id = s.id;
  try {
    answer = await exchange(ctx, c, s.rec, out, res);
    const minted = answer.headers["mcp-session-id"];
    if (typeof minted === "string" && minted !== "" && minted !== session) {
      id = ctx.sealer.seal({ user: c.principal.user, tool: c.tool, revision: s.rec.revision, instance: s.rec.instance, upstream: minted });
      if (shared) usedShared(ctx, c, s.rec, minted);
    }
  } finally {
    hold?.();
  }
  const extra: Record<string, string> = id ? { "mcp-session-id": id } : {};
  if (msg.rewrite && msg.method && answer.statusCode === 200) {
    const method = msg.method;
    const rewrite = isEventStream(answer) ? rewriteEvents : rewriteResult;
    await ctx.budget.rewrite(answer, ctx.config.limits.maxBodyBytes * 4, (raw, charge) => {
      charge(rewriteCost(raw));
      sendRewritten(res, answer, rewrite(method, raw) ?? raw, extra);
      return untilSent(res);
    });
    return answer.statusCode;
  }
  await relay(res, answer, extra, () => ctx.sessions.touch(toolSessionKey(s.rec.user, c.tool, s.rec.revision)), ctx.keepaliveMs);
  return answer.statusCode ?? 502;
}

async function passThrough(ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse, path: string, withBody: boolean): Promise<void> {
  // The OpenAPI document is everyone's anyway.
  if (withBody) checkSharedUse(isShared(ctx.config, c.tool, revisionOf(c)), { stateless: false, inSession: false, rest: true });
  const body = withBody ? await readBody(req, ctx.config.limits.maxBodyBytes) : undefined;
  // A REST call is traced as the tools/call it is: the gateway's span between the client's and the tool server's.
  const traced = withBody && ctx.tracer.active ? restTrace(ctx.tracer, path.slice("tools/".length), req.headers) : undefined;
  const watched = withBody ? watchRest(ctx, c, res, path.slice("tools/".length)) : undefined;
  if (watched && traced) watched.traceId = traced.span.record.traceId;
  try {
    const rec = await ctx.sessions.acquire(c.principal.user, c.tool, revisionOf(c));
    if (watched) watched.revision = rec.revision;
    const answer = await exchange(ctx, c, rec, { method: req.method!, path, headers: req.headers, body, trace: traced?.fields }, res);
    traced?.span.end(answer.statusCode !== undefined && answer.statusCode >= 400 ? String(answer.statusCode) : undefined);
    await relay(res, answer, {}, undefined, ctx.keepaliveMs);
  } catch (err) {
    traced?.span.end(errorTypeOf(err));
    throw err;
  }
}

async function streamGet(ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (namedSession(req, c.query) !== undefined) {
    // A client's standalone stream for its session: held open and relayed.
    const s = await continueOrStart(ctx, c, req, undefined);
    // A legacy stream's id names no session there: a stream without one would open one nobody counts.
    checkSharedUse(s.rec.user === EVERYONE, { stateless: false, inSession: !!s.upstream });
    const answer = await exchange(ctx, c, s.rec, { method: "GET", path: "mcp", headers: req.headers, session: s.upstream }, res);
    await relay(
      res,
      answer,
      { "mcp-session-id": s.id! },
      () => {
        ctx.sessions.touch(toolSessionKey(s.rec.user, c.tool, s.rec.revision));
        if (s.rec.user === EVERYONE && s.upstream) usedShared(ctx, c, s.rec, s.upstream);
      },
      ctx.keepaliveMs,
    );
    return;
  }
  // No session: one complete event stream whose `endpoint` names the POST path with a new session.
  const s = await mint(ctx, c, await ctx.sessions.acquire(c.principal.user, c.tool, revisionOf(c)));
  openStream(res, 200, corsWith({ "mcp-session-id": s.id! }));
  res.end(formatEvent({ event: "endpoint", data: `${toolPath(ctx, c.tool)}/mcp?session_id=${s.id}` }));
}

async function deleteSession(ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (namedSession(req, c.query) === undefined) throw new GatewayError("no_session", "DELETE needs the Mcp-Session-Id header");
  const s = await continueOrStart(ctx, c, req, undefined);
  const answer = await exchange(ctx, c, s.rec, { method: "DELETE", path: "mcp", headers: req.headers, session: s.upstream }, res);
  if (answer.statusCode !== undefined && answer.statusCode < 300) ctx.sessions.shared.ended(s.rec.instance, s.upstream!);
  await relay(res, answer, {});
  // A Slurm job is the session: ending the session gives its allocation back (scancel) rather
  // than holding it until the idle bound. The next request submits a new job.
  if (s.rec.jobId !== undefined) await ctx.sessions.stop(s.rec.instance);
}

async function bootstrap(ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // A session the caller names is reused (after the same checks as any request); else a new one.
  const named = await continueOrStart(ctx, c, req, undefined);
  const s = named.id ? named : await mint(ctx, c, named.rec);
  const base = `${ctx.publicUrl}/api/mcp/${c.tool}`;
  sendJson(
    res,
    200,
    {
      tool: c.tool,
      revision: s.rec.revision,
      session: s.id,
      endpoints: {
        mcp: `${base}/mcp`,
        session: `${base}/${s.id}`,
        sse: `${base}/sse`,
        openapi: `${base}/openapi.json`,
        tools: `${base}/tools/`,
        resource_metadata: `${base}/mcp/.well-known/oauth-protected-resource`,
      },
      ...consoleLinkFields(ctx.cookieKey, ctx.publicUrl, c.principal.user, s.rec),
    },
    { "mcp-session-id": s.id! },
  );
}

async function sseInfo(ctx: GatewayContext, c: Caller, res: ServerResponse): Promise<void> {
  const rec = await ctx.sessions.acquire(c.principal.user, c.tool, revisionOf(c));
  if (rec.weberPrefix) {
    const base = `${ctx.publicUrl}${rec.weberPrefix}/`;
    const cookie = sessionProxyCookie(ctx.cookieKey, rec.instance, c.principal.user, ctx.config.limits.proxyCookieMs);
    sendJson(res, 200, { sse_endpoint: `${base}sse`, post_endpoint: base, cookie_header: cookie });
    return;
  }
  // A `url` or `command` server, or a shared one, has no session proxy path: its address and cookie are the
  // gateway's internals, so the client gets the gateway's own routes, which take the bearer.
  const base = `${ctx.publicUrl}/api/mcp/${c.tool}`;
  sendJson(res, 200, { sse_endpoint: `${base}/sse`, post_endpoint: `${base}/mcp`, cookie_header: "" });
}

/**
 * `GET …/sse`: the legacy transport's stream for a client that asks for one, the session
 * proxy info as JSON for one that takes JSON (curl, the console); a client that takes neither
 * (an SDK transport pointed at the wrong URL) gets a 406 that says so, not JSON it cannot parse.
 */
function legacyGet(ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const accept = parseAccept(req.headers.accept);
  if (accept.streams) return openLegacy(ctx, c, res);
  if (!accept.json) throw notAcceptable();
  return sseInfo(ctx, c, res);
}

const notAcceptable = (): GatewayError =>
  new GatewayError(
    "not_acceptable",
    "GET …/sse answers an event stream (Accept: text/event-stream, the 2024-11-05 SSE transport) or its connection details as JSON (Accept: application/json); streamable-HTTP clients connect to …/mcp",
  );

/** `GET …/sse` asking for an event stream: the standard legacy transport, through the gateway. */
async function openLegacy(ctx: GatewayContext, c: Caller, res: ServerResponse): Promise<void> {
  const rec = await ctx.sessions.acquire(c.principal.user, c.tool, revisionOf(c));
  const shared = rec.user === EVERYONE;
  // The stream always comes to hold a session there: its place is taken now, and given back when it closes.
  const hold = holdShared(ctx, c, rec);
  // The upstream session is opened by the client's own initialize on the stream, so the tool
  // server hears the client's capabilities; the held stream keeps it, and the id names none.
  const id = ctx.sealer.seal({ user: c.principal.user, tool: c.tool, revision: rec.revision, instance: rec.instance, upstream: "" });
  const key = toolSessionKey(rec.user, c.tool, rec.revision);
  ctx.legacy.open(res, {
    id,
    user: c.principal.user,
    upstream: upstreamOf(ctx, rec),
    endpoint: `${toolPath(ctx, c.tool)}/sse?session_id=${encodeURIComponent(id)}`,
    resourcePrefix: resourcePrefix(ctx, c.tool),
    keepaliveMs: ctx.keepaliveMs,
    maxAnswerBytes: ctx.config.limits.maxBodyBytes * 4,
    vouched: vouchedFor(ctx, c.principal.user, res.req.socket.remoteAddress),
    shared,
    onUse: (upstream) => {
      ctx.sessions.touch(key);
      if (shared && upstream) {
        usedShared(ctx, c, rec, upstream);
        hold?.();
      }
    },
    onClose: (upstream) => {
      hold?.();
      if (shared && upstream) ctx.sessions.shared.ended(rec.instance, upstream);
    },
  });
}

/** A POST to the URL a legacy stream's `endpoint` named. */
async function postLegacy(ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (namedSession(req, c.query) === undefined) throw new GatewayError("no_session", "POST …/sse needs the session_id its endpoint event named");
  const s = await continueOrStart(ctx, c, req, undefined);
  const body = await readBody(req, ctx.config.limits.maxBodyBytes);
  // Answered 202 at once, but the call runs on the tool server until its answer: it holds a slot that long.
  const release = ctx.slots.take(c.principal.user, s.rec.url!);
  try {
    await ctx.legacy.post(s.id!, c.principal.user, req, res, body);
  } finally {
    release();
  }
}

type ToolHandler = (ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** The handlers of the per-tool routes, by route; the gateway's route table (./route-table.ts) decides which runs. */
export const toolRoutes = {
  rpc: (ctx, c, req, res) => rpc(ctx, c, req, res, undefined, false),
  /** `POST /api/mcp/{tool}`: JSON-RPC with a gateway session minted when the client names none. */
  rootRpc: (ctx, c, req, res) => rpc(ctx, c, req, res, undefined, true),
  streamGet,
  deleteSession,
  bootstrap,
  legacyGet,
  postLegacy,
  openapi: (ctx, c, req, res) => passThrough(ctx, c, req, res, "openapi.json", false),
} satisfies Record<string, ToolHandler>;

/** `POST /api/mcp/{tool}/{session}`: JSON-RPC in the session the path names. */
export function sessionRpc(ctx: GatewayContext, c: Caller, session: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return rpc(ctx, c, req, res, session, true);
}

/** `POST /api/mcp/{tool}/tools/{name}`: the REST route, passed through. */
export function restCall(ctx: GatewayContext, c: Caller, name: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  return passThrough(ctx, c, req, res, `tools/${name}`, true);
}
