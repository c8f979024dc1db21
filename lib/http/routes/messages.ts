// `POST /mcp` and `POST /`: JSON-RPC in, JSON-RPC out (as JSON or an SSE stream, see
// ../post-reply.ts); `DELETE /mcp` ends a session.
import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode, failure } from "../../util/jsonrpc.ts";
import type { Session } from "../../session/session.ts";
import { refused, type Outcome } from "../../mcp/outcome.ts";
import { classifyProtocolRevision } from "../../mcp/revision.ts";
import type { HttpState, RouteHandler } from "../types.ts";
import { acceptFor, type Acceptable } from "../accept.ts";
import { readJsonBodyThen, type BodyResult } from "../body.ts";
import { PostReply } from "../post-reply.ts";
import type { RequestUrl } from "../request-url.ts";
import { sendError, sendJson, sendTooLarge } from "../respond.ts";
import { namedSessionId, resolveSession } from "../session-ref.ts";
import { httpStatus, statusOf } from "../status.ts";

function asksToInitialize(body: unknown): boolean {
  const isInit = (m: unknown): boolean => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize";
  return Array.isArray(body) ? body.some(isInit) : isInit(body);
}

export function sessionNotFound(res: ServerResponse): void {
  sendJson(res, 404, failure(null, { code: ErrorCode.SessionNotFound, message: "Session not found; initialize a new session" }));
}

export function notAcceptable(res: ServerResponse, wanted: string): void {
  sendJson(res, 406, failure(null, { code: ErrorCode.InvalidRequest, message: `Not Acceptable: the Accept header must allow ${wanted}` }));
}

/**
 * Synchronous up to the body, then answered from the body's `end` event: a call whose
 * method answers synchronously (a sync tool, initialize) makes no promise on its way.
 */
function post(app: HttpState, req: IncomingMessage, res: ServerResponse, url: RequestUrl): void {
  const accept = acceptFor(req.headers.accept);
  if (!accept.json && !accept.sse) {
    req.resume();
    return notAcceptable(res, "application/json or text/event-stream");
  }
  readJsonBodyThen(req, app.options.maxBodyBytes, (body) => {
    try {
      settle(app, res, posted(app, req, res, url, accept, body));
    } catch (err) {
      app.failed(res, err);
    }
  });
}

/** A call still running once the body's handler returns: counted for close(), its failure answered. */
function settle(app: HttpState, res: ServerResponse, work: void | Promise<void>): void {
  if (work instanceof Promise) app.track(work).catch((err: unknown) => app.failed(res, err));
}

function posted(app: HttpState, req: IncomingMessage, res: ServerResponse, url: RequestUrl, accept: Acceptable, body: BodyResult): void | Promise<void> {
  if (!body.ok) {
    if (body.reason === "aborted") return;
    if (body.reason === "too-large") return sendTooLarge(res);
    return sendJson(res, statusOf("HUBMCP_BODY_NOT_JSON"), failure(null, { code: ErrorCode.ParseError, message: "Parse error" }));
  }
  const message = body.empty ? null : body.value;
  const revision = classifyProtocolRevision(headerText(req.headers["mcp-protocol-version"]), message);
  // A 2026-07-28 request names no session: whatever Mcp-Session-Id it carries is ignored.
  if (revision.kind === "stateless") return answerStateless(app, new PostReply(app, res, null, accept, false), req, message);
  if (revision.kind === "refused") {
    const reply = failure(null, revision.error);
    return sendJson(res, httpStatus(refused(revision.refusal, reply)), reply);
  }
  const ref = resolveSession(req, url.query, app.sessions);
  if (ref.kind === "unknown") return sessionNotFound(res);
  let session = ref.kind === "found" ? ref.session : null;
  if (!session && asksToInitialize(body.value)) {
    session = app.sessions.create();
    if (!session) return sendError(res, 503, "Too many sessions; try again later", { "retry-after": "5" });
  }
  return answer(app, new PostReply(app, res, session, accept, url.path === "/"), session, message);
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** A 2026-07-28 request: no session is looked up, minted or named in the reply. */
async function answerStateless(app: HttpState, reply: PostReply, req: IncomingMessage, message: unknown): Promise<void> {
  reply.finish(await app.protocol.stateless.handle(message, reply, req.headers));
}

/** Dispatch through the written answer: a call that goes on past this turn is returned, for close() to wait on. */
function answer(app: HttpState, reply: PostReply, session: Session | null, message: unknown): void | Promise<void> {
  const answered = app.protocol.session.answer(message, reply);
  if (answered instanceof Promise) return answerLater(app, reply, session, answered);
  // Answered in this turn: nothing could have swept the session meanwhile, so it needs no hold.
  session?.touch();
  deliver(app, reply, session, answered);
}

async function answerLater(app: HttpState, reply: PostReply, session: Session | null, answered: Promise<Outcome>): Promise<void> {
  // A long call (its reply streaming or not) must not see its session expire under it.
  const release = session?.hold();
  let answer: Outcome;
  try {
    answer = await answered;
  } finally {
    release?.();
  }
  deliver(app, reply, session, answer);
}

function deliver(app: HttpState, reply: PostReply, session: Session | null, answer: Outcome): void {
  reply.finish(answer);
  if (answer.kind === "accepted") return;
  const response = answer.reply;
  const sessionId = session === null ? null : session.id;
  if (Array.isArray(response)) for (const r of response) app.broadcast(r, sessionId);
  else app.broadcast(response, sessionId);
}

export const messageRoutes = {
  post,

  remove(app, req, res, url) {
    const id = namedSessionId(req, url.query);
    if (id === null) return sendError(res, 400, "Name the session to end in the Mcp-Session-Id header");
    if (!app.sessions.delete(id)) return sessionNotFound(res);
    sendJson(res, 200, { status: "terminated" });
  },
} satisfies Record<string, RouteHandler>;
