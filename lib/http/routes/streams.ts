// `GET /sse` (legacy transport) and `GET /mcp` (standalone stream): each opens an event
// stream bound to a session and tells the client where to POST.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcMessage } from "../../mcp/jsonrpc.ts";
import type { Session, SessionStream } from "../../session/session.ts";
import type { HttpApp, RouteHandler } from "../app.ts";
import { CORS_HEADERS, sendError } from "../respond.ts";
import { resolveSession } from "../session-ref.ts";
import { SseStream } from "../sse.ts";
import { sessionNotFound } from "./messages.ts";

function sessionFor(app: HttpApp, req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Session | null {
  const ref = resolveSession(req, query, app.sessions);
  if (ref.kind === "unknown") {
    sessionNotFound(res);
    return null;
  }
  if (ref.kind === "found") return ref.session;
  const session = app.sessions.create();
  if (!session) sendError(res, 503, "Too many sessions; try again later", { "retry-after": "5" });
  return session;
}

function open(app: HttpApp, res: ServerResponse, session: Session, kind: SessionStream["kind"]): SseStream {
  const sse = new SseStream(res, {
    keepaliveMs: app.options.keepaliveMs,
    maxBufferedBytes: app.options.maxStreamBufferBytes,
    headers: { ...CORS_HEADERS, "mcp-session-id": session.id },
  });
  const stream: SessionStream = {
    kind,
    send: (message: JsonRpcMessage) => sse.send({ event: "message", data: JSON.stringify(message) }),
    close: () => sse.close(),
  };
  session.streams.add(stream);
  if (kind === "sse") app.sseStreams.add(stream);
  sse.onClose(() => {
    session.streams.delete(stream);
    app.sseStreams.delete(stream);
    session.lastActive = Date.now();
  });
  return sse;
}

export const streamRoutes = {
  sse(app, req, res, url) {
    const session = sessionFor(app, req, res, url.query);
    if (!session) return;
    const sse = open(app, res, session, "sse");
    sse.send({ event: "open", data: "{}" });
    sse.send({ event: "endpoint", data: `${app.core.pathPrefix}/?session_id=${session.id}` });
  },

  mcp(app, req, res, url) {
    const session = sessionFor(app, req, res, url.query);
    if (!session) return;
    const sse = open(app, res, session, "mcp");
    sse.send({ event: "endpoint", data: `${app.core.pathPrefix}/mcp?session_id=${session.id}` });
  },
} satisfies Record<string, RouteHandler>;
