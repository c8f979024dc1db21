// The routes under /api/mcp/{tool}, once the caller is known and allowed: JSON-RPC (with
// gateway sessions), the session bootstrap, the legacy connection info, the REST tool
// route and the OpenAPI document. Each picks the tool session, forwards, and relays.
import type { Agent, IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { GatewayConfig, ToolSpec } from "./config.ts";
import type { AccountDirectory, Principal } from "./contracts.ts";
import { type AnswerBudget, rewriteCost, untilSent } from "./answer-budget.ts";
import {
  corsWith,
  isEventStream,
  openStream,
  relay,
  send,
  sendRewritten,
  upstreamFailure,
  type Cancel,
  type Outgoing,
  type Upstream,
  type Vouched,
} from "./forward.ts";
import { parseAccept } from "../http/accept.ts";
import { formatEvent } from "../http/sse.ts";
import type { LegacyStreams } from "./legacy-sse.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { isStateless, mintUpstreamSession, namedSession, openSession } from "./mcp-sessions.ts";
import { readBody } from "../http/body.ts";
import { GatewayError, sendJson } from "./respond.ts";
import { inspectRequest, mayActOn, passedOn, rewriteEvents, rewriteResult, type ParsedMessage } from "./rewrite.ts";
import { decodeHeaderValue, encodeHeaderValue } from "../mcp/stateless/headers.ts";
import type { Query, Route } from "./routes.ts";
import type { SessionSealer } from "./session-seal.ts";
import { checkSharedUse, EVERYONE, isShared } from "./shared-sessions.ts";
import { sessionKey, type ToolSessionRecord, type ToolSessions } from "./tool-sessions.ts";
import type { UpstreamSlots } from "./upstream-slots.ts";
import { MCP_ACCEPT } from "./upstream-mcp.ts";
import { sessionProxyCookie } from "./session-proxy-cookie.ts";
import { consoleLinkFields } from "./console-ticket.ts";
import { next } from "../util/maybe-async.ts";

export interface GatewayContext {
  readonly config: GatewayConfig;
  readonly publicUrl: string;
  readonly sessions: ToolSessions;
  readonly sealer: SessionSealer;
  /** Signs session proxy cookies. */
  readonly cookieKey: Buffer;
  /** Session proxy requests check the cookie's account and groups here (through the lookup cache). */
  readonly accounts: AccountDirectory;
  readonly metrics: GatewayMetrics;
  /** Between keepalive comments on relayed streams. */
  readonly keepaliveMs: number;
  /** The 2024-11-05 HTTP+SSE streams clients hold through `GET …/sse`. */
  readonly legacy: LegacyStreams;
  /** Requests each person has running on each tool server. */
  readonly slots: UpstreamSlots;
  /** Bytes of answers being rewritten. */
  readonly budget: AnswerBudget;
  /** This gateway's pooled connections to tool servers, destroyed when it closes. */
  readonly agent: Agent;
}

/** Where a tool session's requests go, on this gateway's connections. */
export function upstreamOf(ctx: Pick<GatewayContext, "agent">, rec: ToolSessionRecord): Upstream {
  return { url: rec.url!, cookie: rec.cookie, agent: ctx.agent };
}

export interface Caller {
  principal: Principal;
  tool: string;
  spec: ToolSpec;
  /** The request's query, read only. */
  query: Query;
}

function revisionOf(c: Caller): string {
  const revision = c.query.get("revision") ?? "default";
  if (!Object.hasOwn(c.spec.revisions, revision)) {
    throw new GatewayError("unknown_revision", `This tool has no such revision; it has: ${Object.keys(c.spec.revisions).join(", ")}`);
  }
  return revision;
}

function resourcePrefix(ctx: GatewayContext, tool: string): string {
  return `${ctx.publicUrl}/api/mcp/${tool}/`;
}

function toolPath(ctx: GatewayContext, tool: string): string {
  return `${new URL(ctx.publicUrl).pathname.replace(/\/$/, "")}/api/mcp/${tool}`;
}

/** What the gateway tells a tool server about the caller, in place of anything the client claimed. */
export function vouchedFor(ctx: GatewayContext, user: string, address: string | undefined): Vouched {
  const proto = ctx.publicUrl.startsWith("https:") ? "https" : "http";
  return address ? { user, address, proto } : { user, proto };
}

/** Forwards, timing the upstream and forgetting a tool session whose server is gone. */
async function exchange(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord, out: Outgoing, res: ServerResponse): Promise<IncomingMessage> {
  // A client gone while its tool session started would never close again to give its slot back.
  if (res.closed) throw new GatewayError("client_gone", "The client went away");
  // Held until the answer to the client ends, streams included: that is how long the upstream connection is busy.
  // The caller, not the record's user: a shared tool server's record is everyone's.
  const release = ctx.slots.take(c.principal.user, rec.url!);
  out.vouched = vouchedFor(ctx, c.principal.user, res.req.socket.remoteAddress);
  const cancel: Cancel = {};
  let cancelled = false;
  // One listener for both: the slot goes back, and a client gone mid-answer stops the upstream exchange.
  res.on("close", () => {
    release();
    if (res.writableFinished) return;
    cancelled = true;
    cancel.onCancel?.();
  });
  const started = performance.now();
  try {
    const answer = await send(upstreamOf(ctx, rec), out, cancel);
    ctx.metrics.upstreamLatency(performance.now() - started);
    return answer;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!cancelled) await ctx.sessions.unreachable(rec, code);
    throw upstreamFailure(err);
  }
}

interface Continued {
  rec: ToolSessionRecord;
  upstream?: string;
  id?: string;
}

/** Answered at once while the tool session is running and remembered (the common case), else a promise. */
function continueOrStart(ctx: GatewayContext, c: Caller, req: IncomingMessage, pathSession: string | undefined): Continued | Promise<Continued> {
  const named = namedSession(req, c.query, pathSession);
  if (named === undefined) return next(ctx.sessions.acquireNow(c.principal.user, c.tool, revisionOf(c)), (rec) => ({ rec }));
  const binding = openSession(ctx.sealer, named, c.principal, c.tool);
  return next(ctx.sessions.acquireNow(c.principal.user, c.tool, binding.revision), (known) => {
    // A remembered record may predate a restart on another replica: ask the data dir before saying no.
    const rec = known.instance === binding.instance ? known : ctx.sessions.acquire(c.principal.user, c.tool, binding.revision, true);
    return next(rec, (rec) => {
      // The tool session restarted since this id was minted: its MCP session is gone with it.
      if (rec.instance !== binding.instance) throw new GatewayError("unknown_session", "The session ended; initialize a new one");
      // A legacy stream's id names no upstream session: its stream holds it (./legacy-sse.ts).
      if (rec.user === EVERYONE && binding.upstream) usedShared(ctx, c, rec, binding.upstream);
      return { rec, upstream: binding.upstream, id: named };
    });
  });
}

function usedShared(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord, upstream: string): void {
  ctx.sessions.shared.use(c.principal.user, c.tool, rec.revision, rec.instance, upstreamOf(ctx, rec), upstream);
}

/** On a shared revision, holds one of the caller's places there until the session it opens is recorded. */
function holdShared(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord): (() => void) | undefined {
  return rec.user === EVERYONE ? ctx.sessions.shared.reserve(c.principal.user, c.tool, rec.revision, rec.instance) : undefined;
}

async function mint(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord): Promise<Continued> {
  const hold = holdShared(ctx, c, rec);
  try {
    const upstream = await mintUpstreamSession(upstreamOf(ctx, rec));
    const id = ctx.sealer.seal({ user: c.principal.user, tool: c.tool, revision: rec.revision, instance: rec.instance, upstream });
    if (hold) usedShared(ctx, c, rec, upstream);
    return { rec, upstream, id };
  } finally {
    hold?.();
  }
}

/**
 * The client's headers for the tool server. The Mcp-Method/Mcp-Name/Mcp-Param-* routing
 * headers pass as they are, except that Mcp-Name follows a resource URI the gateway
 * unprefixed, when it named that URI; a header that did not is left for the tool server to refuse.
 */
function forwardedHeaders(req: IncomingMessage, msg: ParsedMessage): IncomingHttpHeaders {
  const sent = req.headers["mcp-name"];
  if (!msg.uri || typeof sent !== "string" || decodeHeaderValue(sent.trim()) !== msg.uri.sent) return req.headers;
  return { ...req.headers, "mcp-name": encodeHeaderValue(msg.uri.forwarded) };
}

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
  const msg = mayActOn(body, req.headers["content-type"]) ? inspectRequest(body, prefix) : passedOn(body);
  if (!msg) {
    sendJson(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    return;
  }
  const stateless = isStateless(req);
  // Refused before any tool session starts for it.
  if (stateless) checkSharedUse(isShared(ctx.config, c.tool, revisionOf(c)), { stateless, inSession: false });
  const found = stateless
    ? next(ctx.sessions.acquireNow(c.principal.user, c.tool, revisionOf(c)), (rec): Continued => ({ rec }))
    : continueOrStart(ctx, c, req, pathSession);
  let s = found instanceof Promise ? await found : found;
  if (!stateless && s.id === undefined && autoSession && !msg.initialize) s = await mint(ctx, c, s.rec);
  const shared = s.rec.user === EVERYONE;
  checkSharedUse(shared, { stateless, inSession: msg.initialize || !!s.upstream });
  const hold = msg.initialize ? holdShared(ctx, c, s.rec) : undefined;
  // An initialize opens a new upstream session, named in its answer, as for any MCP client:
  // a server may refuse a second initialize on a session (the official SDK's does).
  const session = msg.initialize ? undefined : s.upstream;
  // Answers the gateway rewrites may come as JSON or as a stream (./rewrite.ts reads both).
  const out: Outgoing = {
    method: "POST",
    path: "mcp",
    headers: forwardedHeaders(req, msg),
    body: msg.body,
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
    return;
  }
  await relay(res, answer, extra, () => ctx.sessions.touch(sessionKey(s.rec.user, c.tool, s.rec.revision)), ctx.keepaliveMs);
}

async function passThrough(ctx: GatewayContext, c: Caller, req: IncomingMessage, res: ServerResponse, path: string, withBody: boolean): Promise<void> {
  // The OpenAPI document is everyone's anyway.
  if (withBody) checkSharedUse(isShared(ctx.config, c.tool, revisionOf(c)), { stateless: false, inSession: false, rest: true });
  const body = withBody ? await readBody(req, ctx.config.limits.maxBodyBytes) : undefined;
  const rec = await ctx.sessions.acquire(c.principal.user, c.tool, revisionOf(c));
  const answer = await exchange(ctx, c, rec, { method: req.method!, path, headers: req.headers, body }, res);
  await relay(res, answer, {}, undefined, ctx.keepaliveMs);
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
        ctx.sessions.touch(sessionKey(s.rec.user, c.tool, s.rec.revision));
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
  const key = sessionKey(rec.user, c.tool, rec.revision);
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

const NOT_ALLOWED = (allow: string): GatewayError => new GatewayError("method_not_allowed", `Use ${allow}`, { allow });

export function handleToolRoute(ctx: GatewayContext, route: Route, c: Caller, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? "GET";
  switch (route.kind) {
    case "mcp":
      if (method === "POST") return rpc(ctx, c, req, res, undefined, false);
      if (method === "GET") return streamGet(ctx, c, req, res);
      if (method === "DELETE") return deleteSession(ctx, c, req, res);
      throw NOT_ALLOWED("GET, POST, DELETE");
    case "tool-root":
      return rpc(ctx, c, req, res, undefined, true);
    case "session":
      if (method !== "POST") throw NOT_ALLOWED("POST");
      return rpc(ctx, c, req, res, route.session, true);
    case "bootstrap":
      if (method !== "GET") throw NOT_ALLOWED("GET, POST");
      return bootstrap(ctx, c, req, res);
    case "sse-info":
      if (method === "POST") return postLegacy(ctx, c, req, res);
      if (method !== "GET") throw NOT_ALLOWED("GET, POST");
      return legacyGet(ctx, c, req, res);
    case "openapi":
      if (method !== "GET") throw NOT_ALLOWED("GET");
      return passThrough(ctx, c, req, res, "openapi.json", false);
    case "rest":
      if (method !== "POST") throw NOT_ALLOWED("POST");
      return passThrough(ctx, c, req, res, `tools/${route.name}`, true);
    default:
      throw new GatewayError("not_found", "No such route");
  }
}
