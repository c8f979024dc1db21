// Requests routed from /mcp to one tool: the caller's own tool session (started on first
// use by the gateway's tool-session machinery) and, for a session client, the MCP session
// opened on it with the client's own initialize params (so elicitation, sampling, roots
// and tasks capabilities reach the tool). Answers come back message by message, renamed
// (./messages.ts) and read back into a method's result (./tool-answer.ts): progress, logging,
// elicitation and sampling travel on the request's stream as they do per tool; list changes
// and resource updates on the GET stream.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { nameFieldOf, encodeHeaderValue } from "../../mcp/stateless/headers.ts";
import { isRecord } from "../../util/guards.ts";
import type { ExposedName } from "../../federation/expose.ts";
import { formatComment, formatEvent } from "../../http/sse.ts";
import { upstreamOf, vouchedFor } from "../calls/tool-call.ts";
import { checkSharedUse, EVERYONE } from "../tool-sessions/isolation.ts";
import type { ToolSessionRecord } from "../tool-sessions/records.ts";
import { corsWith, isEventStream, openStream, send, type Cancel, type Upstream } from "../relay/forward.ts";
import { GatewayError } from "../contracts/respond.ts";
import { readAnswer, type Relayed, type Sink } from "./tool-answer.ts";
import type { ConnectorContext } from "./context.ts";
import { exposeMessage } from "./messages.ts";
import { unprefixId } from "../../federation/ids.ts";
import { type Hearers, notifyServers } from "../../federation/route-moves.ts";
import type { RequestId } from "../../util/jsonrpc.ts";
import type { ConnectorSession, Link } from "./sessions.ts";
import type { WatchedCall } from "../calls/audit-calls.ts";
import { initialize, postMessage as post, readMessages } from "../relay/upstream-mcp.ts";
import { connectorTrace, errorTypeOf } from "../relay/trace.ts";

export interface Routed {
  session: ConnectorSession | undefined;
  user: string;
  tool: string;
  id: string | number;
  method: string;
  params: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The caller's names for a tool's own tool names (its view of the namespace). */
  exposedName?: ExposedName;
  /** How the answer is exposed, when not as an answer to `method` (a job poll, ./jobs.ts). */
  answering?: string;
  /** The audit trail's watch on this request, told the revision once the tool session is known. */
  watched?: WatchedCall;
}

/** The link to `tool` for this client: reused while its tool session runs, else (re)started. */
export async function linkFor(cc: ConnectorContext, s: ConnectorSession | undefined, user: string, tool: string): Promise<Link> {
  // A registered tool may be removed while a request for it is on its way (../tool-registry/live.ts).
  const spec = cc.gw.config.tools[tool];
  if (!spec) throw new GatewayError("unknown_tool", "No such tool on this gateway");
  const found = cc.gw.sessions.acquireNow(user, tool, spec.catalogRevision);
  const rec = found instanceof Promise ? await found : found;
  const up = upstreamOf(cc.gw, rec);
  if (!s) return { tool, rec, up, session: undefined };
  const known = s.links.get(tool);
  if (known) {
    const link = await known.catch(() => undefined);
    if (link && link.rec.instance === rec.instance) return link;
    if (s.links.get(tool) === known) s.links.delete(tool);
  }
  let starting = s.links.get(tool);
  if (!starting) {
    // Forgotten meanwhile (DELETE, idle, a bound): nothing would end a session opened now.
    if (s.ended.signal.aborted) throw new GatewayError("unknown_session", "No such session; initialize a new one");
    // Written to the store before it is used: the client's next request may reach another replica.
    starting = open(cc, s, tool, rec, up).then((link) => s.keep(tool, link));
    s.links.set(tool, starting);
    const mine = starting;
    mine.then(
      (link) => {
        for (const attach of s.streams) attach(link);
      },
      () => s.links.get(tool) === mine && s.links.delete(tool),
    );
  }
  return starting;
}

/**
 * Opens the client's MCP session on the tool server. On a shared revision it is one of the
 * person's sessions there, counted against `sessionsPerUser` (429 beyond) and ended on the
 * tool server when idle, as on the per-tool routes; the /mcp session ends it when it ends (./sessions.ts).
 */
async function open(cc: ConnectorContext, s: ConnectorSession, tool: string, rec: ToolSessionRecord, up: Upstream): Promise<Link> {
  const shared = rec.user === EVERYONE ? cc.gw.sessions.shared : undefined;
  const release = shared?.reserve(s.user, tool, rec.revision, rec.instance);
  try {
    const opened = await initialize(up, s.initParams);
    if (shared && opened.session) shared.use(s.user, tool, rec.revision, rec.instance, up, opened.session);
    return { tool, rec, up, session: opened.session };
  } finally {
    release?.();
  }
}

/** A use of a client's session on a shared revision: it is not idle there (a forgotten one is not used again). */
function usedShared(cc: ConnectorContext, s: ConnectorSession | undefined, link: Link): void {
  if (!s || s.ended.signal.aborted || !link.session || link.rec.user !== EVERYONE) return;
  cc.gw.sessions.shared.use(s.user, link.tool, link.rec.revision, link.rec.instance, link.up, link.session);
}

/** The tool's list changed: its catalog and every view built from it are stale. */
function listChanged(cc: ConnectorContext, tool: string): () => void {
  return () => {
    // Every revision of it: the tool may have been registered again or removed since.
    cc.catalogs.forget(tool);
    cc.views.changed();
  };
}

/** Mcp-Name (MCP 2026-07-28 routing header) follows the name or URI the gateway resolved. */
function routingHeaders(headers: IncomingHttpHeaders, method: string, params: Record<string, unknown>): IncomingHttpHeaders {
  const field = nameFieldOf(method);
  const value = field ? params[field] : undefined;
  if (headers["mcp-name"] === undefined || typeof value !== "string") return headers;
  return { ...headers, "mcp-name": encodeHeaderValue(value) };
}

/**
 * Writes one message event; when the client is not keeping up, resolves once it drained (or
 * left), so the tool server's stream is paused rather than buffered in the gateway.
 */
export function writeMessage(res: ServerResponse, message: unknown): Promise<void> | undefined {
  if (res.write(formatEvent({ event: "message", data: JSON.stringify(message) }))) return undefined;
  return new Promise((resume) => {
    const go = (): void => {
      res.off("drain", go);
      res.off("close", go);
      resume();
    };
    res.once("drain", go);
    res.once("close", go);
  });
}

/** The tool's answer to `r`; interim messages (progress, logging, the tool's questions) go to `sink` on the way. */
export async function forward(cc: ConnectorContext, r: Routed, sink: Sink): Promise<Relayed> {
  const s = r.session;
  let link = await linkFor(cc, s, r.user, r.tool);
  if (r.watched) r.watched.revision = link.rec.revision;
  // A stateless request (no /mcp session) runs in no MCP session of the caller's on the tool server.
  checkSharedUse(link.rec.user === EVERYONE, { stateless: !s, inSession: !!link.session });
  usedShared(cc, s, link);
  // The same per-person bound on one tool server as the per-tool routes (issue: one person must not hold its pool).
  const release = cc.gw.slots.take(r.user, link.rec.url!);
  const cancel: Cancel = {};
  // A client gone mid-answer stops the exchange, as on the per-tool routes.
  const stop = sink.onGone(() => cancel.onCancel?.());
  const key = JSON.stringify(r.id);
  // In flight from here: a cancellation finds its tool, and the session is not idle while it runs.
  s?.inflight.set(key, link);
  // Traced, the gateway's span sits between the client's and the tool server's, as per tool.
  const traced = cc.gw.tracer.active ? connectorTrace(cc.gw.tracer, r.method, r.id, r.params, r.headers) : undefined;
  try {
    const message = { jsonrpc: "2.0", id: r.id, method: r.method, params: traced?.params ?? r.params };
    const headers = routingHeaders(traced?.headers ?? r.headers, r.method, r.params);
    // As on the per-tool routes: the tool server hears who the gateway vouches for, never the client's own claim.
    const vouched = vouchedFor(cc.gw, r.user, sink.res.req.socket.remoteAddress);
    let answer = await post(link.up, link.session, message, headers, cancel, vouched);
    if (answer.statusCode === 404 && s && link.session) {
      // The tool server forgot this client's MCP session: open another and send again.
      answer.resume();
      if (s.links.get(r.tool)) s.links.delete(r.tool);
      link = await linkFor(cc, s, r.user, r.tool);
      s.inflight.set(key, link);
      answer = await post(link.up, link.session, message, headers, cancel, vouched);
    }
    const onListChanged = listChanged(cc, r.tool);
    const expose = (m: unknown): unknown => exposeMessage(r.tool, m, r.answering ?? r.method, onListChanged, r.exposedName);
    // Only a batch can not carry a tool's question, and a batch is in a session, where the tool
    // goes on past a client leaving (its answer could be resumed): told, it ends the call.
    const reason = "The call asked the client in a batch";
    const abandon = (): void => void notifyTools(s!, "notifications/cancelled", { requestId: r.id, reason });
    const relayed = await readAnswer(cc.gw.budget, answer, sink, expose, abandon);
    traced?.span.end(answer.statusCode !== undefined && answer.statusCode >= 400 ? String(answer.statusCode) : undefined);
    return relayed;
  } catch (err) {
    traced?.span.end(errorTypeOf(err));
    throw err;
  } finally {
    stop();
    release();
    if (s?.inflight.get(key) === link) s.inflight.delete(key);
  }
}

/** A client's answer to a request a tool sent it (elicitation, sampling, roots): back to that tool. */
export async function answerTool(s: ConnectorSession, message: Record<string, unknown>): Promise<void> {
  const found = unprefixId(message.id);
  const link = found ? await s.links.get(found.label)?.catch(() => undefined) : undefined;
  if (!found || !link) return;
  const answer = await post(link.up, link.session, { ...message, id: found.id }, { "mcp-protocol-version": s.protocolVersion }, AbortSignal.timeout(30_000));
  answer.resume();
}

/** Each of a session's links, as the relays' one rule for a caller's notifications hears them (../../federation/route-moves.ts). */
function hearers(s: ConnectorSession, requestId: unknown): Hearers<Link> {
  const headers = { "mcp-protocol-version": s.protocolVersion };
  return {
    started: () => s.started(),
    // The tool hears a cancellation under the client's own id: /mcp relays requests with their ids unchanged.
    inFlight: (key) => {
      const link = s.inflight.get(key);
      return link && { server: link, serverId: requestId as RequestId };
    },
    notify: async (link, method, params) => {
      const notice = { jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) };
      (await post(link.up, link.session, notice, headers, AbortSignal.timeout(30_000))).resume();
    },
    // A session's requests may run on any replica (no affinity): one not running on this one
    // is cancelled by telling every started tool; the tool running it stops, the others know no such id.
    runsElsewhere: true,
  };
}

/** A client's notification, to the tools that hear it; best effort, as every notification. */
export function notifyTools(s: ConnectorSession, method: string, params: unknown): Promise<void> {
  const p = isRecord(params) ? params : undefined;
  return notifyServers(hearers(s, p?.requestId), method, p);
}

/** The client's standalone stream: each started tool's own, merged, and those of tools started later. */
export async function standaloneStream(cc: ConnectorContext, s: ConnectorSession, res: ServerResponse): Promise<void> {
  openStream(res, 200, corsWith({ "mcp-session-id": s.id }));
  const controller = new AbortController();
  const attached = new Set<Link>();
  const attach = (link: Link): void => {
    // A link that was starting when the stream opened is offered twice: once is enough.
    if (attached.has(link)) return;
    attached.add(link);
    void (async () => {
      const headers = { accept: "text/event-stream", "mcp-protocol-version": s.protocolVersion };
      const answer = await send(link.up, { method: "GET", path: "mcp", headers, session: link.session }, controller.signal);
      if (answer.statusCode !== 200 || !isEventStream(answer)) return void answer.resume();
      await readMessages(answer, (m) => writeMessage(res, exposeMessage(link.tool, m, undefined, listChanged(cc, link.tool))));
    })().catch(() => {
      // That tool's stream ended (closing, or its session is gone): the others go on.
    });
  };
  s.streams.add(attach);
  const notice = (message: unknown): void => void writeMessage(res, message);
  s.notices.add(notice);
  for (const link of await s.started()) attach(link);
  const timer = setInterval(() => {
    res.write(formatComment("keepalive"));
    // A client listening is using its sessions: on a shared revision they are not idle.
    for (const link of attached) usedShared(cc, s, link);
  }, cc.gw.keepaliveMs);
  timer.unref();
  // Until the client leaves, or its session ends (DELETE, a bound): then the stream ends too.
  const ended = (): void => void res.end();
  s.ended.signal.addEventListener("abort", ended);
  await new Promise((done) => res.once("close", done));
  s.ended.signal.removeEventListener("abort", ended);
  clearInterval(timer);
  s.streams.delete(attach);
  s.notices.delete(notice);
  controller.abort();
}
