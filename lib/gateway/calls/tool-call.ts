// What every route under /api/mcp/{tool} shares once the caller is known: the gateway's
// context, the caller, and the steps that find or start the person's tool session and its
// MCP session, and forward one exchange to it. The routes themselves are in ../edge/tool-routes.ts;
// the hub connector and the session proxy reach tool sessions through these too.
import type { Agent, IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { GatewayConfig, ToolSpec } from "../config/gateway-config.ts";
import type { AccountDirectory, Principal } from "../contracts/interfaces.ts";
import type { AnswerBudget } from "../relay/answer-budget.ts";
import { send, upstreamFailure, type Cancel, type Outgoing, type Upstream, type Vouched } from "../relay/forward.ts";
import type { LegacyStreams } from "./legacy-sse.ts";
import type { GatewayMetrics } from "../operations/metrics.ts";
import type { AuditTrail } from "../audit/trail.ts";
import { mintUpstreamSession, namedSession, openSession } from "../relay/mcp-sessions.ts";
import { GatewayError } from "../contracts/respond.ts";
import type { ParsedMessage } from "../relay/rewrite.ts";
import { decodeHeaderValue, encodeHeaderValue } from "../../mcp/stateless/headers.ts";
import type { Query } from "../contracts/routes.ts";
import type { SessionSealer } from "../relay/session-seal.ts";
import { EVERYONE } from "../tool-sessions/isolation.ts";
import type { ToolSessions } from "../tool-sessions/tool-sessions.ts";
import type { ToolSessionRecord } from "../tool-sessions/records.ts";
import type { UpstreamSlots } from "../relay/upstream-slots.ts";
import { andThen } from "../../util/maybe-async.ts";
import type { Tracer } from "../../telemetry/tracer.ts";

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
  /** One line per tool call, resource read and prompt get (./audit/). */
  readonly audit: AuditTrail;
  /** This gateway's spans: exported, published, or (inactive) not made at all. */
  readonly tracer: Tracer;
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

export function revisionOf(c: Caller): string {
  const revision = c.query.get("revision") ?? c.spec.defaultRevision;
  if (!Object.hasOwn(c.spec.revisions, revision)) {
    throw new GatewayError("unknown_revision", `This tool has no such revision; it has: ${Object.keys(c.spec.revisions).join(", ")}`);
  }
  return revision;
}

export function resourcePrefix(ctx: GatewayContext, tool: string): string {
  return `${ctx.publicUrl}/api/mcp/${tool}/`;
}

export function toolPath(ctx: GatewayContext, tool: string): string {
  return `${new URL(ctx.publicUrl).pathname.replace(/\/$/, "")}/api/mcp/${tool}`;
}

/** What the gateway tells a tool server about the caller, in place of anything the client claimed. */
export function vouchedFor(ctx: GatewayContext, user: string, address: string | undefined): Vouched {
  const proto = ctx.publicUrl.startsWith("https:") ? "https" : "http";
  return address ? { user, address, proto } : { user, proto };
}

/** Forwards, timing the upstream and forgetting a tool session whose server is gone. */
export async function exchange(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord, out: Outgoing, res: ServerResponse): Promise<IncomingMessage> {
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

export interface Continued {
  rec: ToolSessionRecord;
  upstream?: string;
  id?: string;
}

/** Answered at once while the tool session is running and remembered (the common case), else a promise. */
export function continueOrStart(ctx: GatewayContext, c: Caller, req: IncomingMessage, pathSession: string | undefined): Continued | Promise<Continued> {
  const named = namedSession(req, c.query, pathSession);
  if (named === undefined) return andThen(ctx.sessions.acquireNow(c.principal.user, c.tool, revisionOf(c)), (rec) => ({ rec }));
  const binding = openSession(ctx.sealer, named, c.principal, c.tool);
  return andThen(ctx.sessions.acquireNow(c.principal.user, c.tool, binding.revision), (known) => {
    // A remembered record may predate a restart on another replica: ask the data dir before saying no.
    const rec = known.instance === binding.instance ? known : ctx.sessions.acquire(c.principal.user, c.tool, binding.revision, true);
    return andThen(rec, (rec) => {
      // The tool session restarted since this id was minted: its MCP session is gone with it.
      if (rec.instance !== binding.instance) throw new GatewayError("unknown_session", "The session ended; initialize a new one");
      // A legacy stream's id names no upstream session: its stream holds it (./legacy-sse.ts).
      if (rec.user === EVERYONE && binding.upstream) usedShared(ctx, c, rec, binding.upstream);
      return { rec, upstream: binding.upstream, id: named };
    });
  });
}

export function usedShared(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord, upstream: string): void {
  ctx.sessions.shared.use(c.principal.user, c.tool, rec.revision, rec.instance, upstreamOf(ctx, rec), upstream);
}

/** On a shared revision, holds one of the caller's places there until the session it opens is recorded. */
export function holdShared(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord): (() => void) | undefined {
  return rec.user === EVERYONE ? ctx.sessions.shared.reserve(c.principal.user, c.tool, rec.revision, rec.instance) : undefined;
}

export async function mint(ctx: GatewayContext, c: Caller, rec: ToolSessionRecord): Promise<Continued> {
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
export function forwardedHeaders(req: IncomingMessage, msg: ParsedMessage): IncomingHttpHeaders {
  const sent = req.headers["mcp-name"];
  if (!msg.uri || typeof sent !== "string" || decodeHeaderValue(sent.trim()) !== msg.uri.sent) return req.headers;
  return { ...req.headers, "mcp-name": encodeHeaderValue(msg.uri.forwarded) };
}
