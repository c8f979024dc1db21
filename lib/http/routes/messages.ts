// `POST /mcp` and `POST /`: JSON-RPC in, JSON-RPC out; `DELETE /mcp` ends a session.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Exchange } from "../../mcp/dispatcher.ts";
import { ErrorCode, failure, type JsonRpcResponse } from "../../mcp/jsonrpc.ts";
import type { Session } from "../../session/session.ts";
import type { HttpApp, RouteHandler } from "../app.ts";
import { readJsonBody } from "../body.ts";
import { sendError, sendJson } from "../respond.ts";
import { namedSessionId, resolveSession } from "../session-ref.ts";

const ACCEPTED = { status: "accepted" } as const;

function asksToInitialize(body: unknown): boolean {
  const isInit = (m: unknown): boolean => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize";
  return Array.isArray(body) ? body.some(isInit) : isInit(body);
}

export function sessionNotFound(res: ServerResponse): void {
  sendJson(res, 404, failure(null, { code: ErrorCode.SessionNotFound, message: "Session not found; initialize a new session" }));
}

/** An exchange whose abort signal is made only if a tool asks for it. */
function exchangeFor(app: HttpApp, session: Session | null, res: ServerResponse): Exchange {
  let controller: AbortController | undefined;
  return {
    session,
    send: (message) => {
      if (session) session.send(message);
    },
    get signal() {
      if (!controller) {
        const ac = (controller = new AbortController());
        // A client that hangs up aborts the work only when nothing else could receive the result.
        res.once("close", () => {
          if (!res.writableFinished && (!session || session.streams.size === 0)) ac.abort();
        });
      }
      return controller.signal;
    },
  };
}

async function post(app: HttpApp, req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
  const ref = resolveSession(req, query, app.sessions);
  if (ref.kind === "unknown") return sessionNotFound(res);
  const body = await readJsonBody(req, app.options.maxBodyBytes);
  if (!body.ok) {
    if (body.reason === "aborted") return;
    if (body.reason === "too-large") return sendError(res, 413, "Request body too large", { connection: "close" });
    return sendJson(res, 400, failure(null, { code: ErrorCode.ParseError, message: "Parse error" }));
  }
  let session = ref.kind === "found" ? ref.session : null;
  if (!session && asksToInitialize(body.value)) {
    session = app.sessions.create();
    if (!session) return sendError(res, 503, "Too many sessions; try again later", { "retry-after": "5" });
  }
  const outcome = await app.dispatcher.handleBody(body.empty ? null : body.value, exchangeFor(app, session, res));
  const headers: Record<string, string> | undefined = session ? { "mcp-session-id": session.id } : undefined;
  if (outcome.kind === "accepted") return sendJson(res, 202, ACCEPTED, headers);
  const payload = outcome.kind === "single" ? outcome.response : outcome.responses;
  sendJson(res, outcome.status, payload, headers);
  const sessionId = session?.id ?? null;
  if (outcome.kind === "single") app.broadcast(outcome.response, sessionId);
  else for (const response of outcome.responses as JsonRpcResponse[]) app.broadcast(response, sessionId);
}

export const messageRoutes = {
  post: (app, req, res, url) => post(app, req, res, url.query),

  remove(app, req, res, url) {
    const id = namedSessionId(req, url.query);
    if (id === null) return sendError(res, 400, "Name the session to end in the Mcp-Session-Id header");
    if (!app.sessions.delete(id)) return sessionNotFound(res);
    sendJson(res, 200, { status: "terminated" });
  },
} satisfies Record<string, RouteHandler>;
