// `GET /sse` (legacy transport) and `GET /mcp` (standalone stream): each opens an event
// stream bound to a session and tells the client where to POST. `GET /mcp` with
// Last-Event-ID resumes the stream that event came from (MCP basic/transports).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JsonRpcMessage } from "../../util/jsonrpc.ts";
import type { Session } from "../../session/session.ts";
import type { HttpState, RouteHandler } from "../types.ts";
import { acceptFor } from "../accept.ts";
import { parseEventId, type EventStream } from "../event-stream.ts";
import { CORS_HEADERS, sendError } from "../respond.ts";
import { namedSessionId, resolveSession } from "../session-ref.ts";
import { SseStream } from "../sse.ts";
import { notAcceptable, sessionNotFound } from "./messages.ts";

function sessionFor(app: HttpState, req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Session | null {
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

function openSse(app: HttpState, res: ServerResponse, session: Session): SseStream {
  return new SseStream(res, {
    keepaliveMs: app.options.keepaliveMs,
    maxBufferedBytes: app.options.maxStreamBufferBytes,
    headers: { ...CORS_HEADERS, "mcp-session-id": session.id },
  });
}

/** The stream a Last-Event-ID names, when this session still keeps it. */
function resumable(app: HttpState, req: IncomingMessage, session: Session): { stream: EventStream; after: number } | null {
  const header = req.headers["last-event-id"];
  if (typeof header !== "string" || header === "") return null;
  const ref = parseEventId(header);
  const stream = ref ? app.streams.find(session, ref.key) : undefined;
  return stream && ref ? { stream, after: ref.seq } : null;
}

export const streamRoutes = {
  sse(app, req, res, url) {
    const session = sessionFor(app, req, res, url.query);
    if (!session) return;
    const sse = openSse(app, res, session);
    app.keepStream(
      session,
      {
        kind: "sse",
        send: (message: JsonRpcMessage) => sse.send({ event: "message", data: JSON.stringify(message) }),
        close: () => sse.close(),
      },
      sse,
    );
    // `open` is a comment: the official SDK clients warn on any event but `endpoint` and
    // `message`, and an EventSource fires its own `open` anyway (docs/decisions.md, Streams).
    sse.comment("open");
    sse.send({ event: "endpoint", data: `${url.base}/?session_id=${session.id}` });
  },

  mcp(app, req, res, url) {
    if (!acceptFor(req.headers.accept).sse) return notAcceptable(res, "text/event-stream");
    const minted = namedSessionId(req, url.query) === null;
    const session = sessionFor(app, req, res, url.query);
    if (!session) return;
    const resume = resumable(app, req, session);
    const stream = resume?.stream ?? app.streams.create(session, "g");
    const sse = openSse(app, res, session);
    // A resumed POST stream only finishes its own request; it takes no other traffic.
    if (resume && stream.key.startsWith("p")) return stream.attach(sse, resume.after);
    // A client that named no session learns its POST URL from the `endpoint` event, which
    // also primes resumption (an id and `retry`). One that named it already knows it (the
    // official clients, which warn on unknown events): a plain priming event, the URL a comment.
    const endpoint = `${url.base}/mcp?session_id=${session.id}`;
    stream.attach(sse, resume ? resume.after : null, minted ? { event: "endpoint", data: endpoint } : { note: `endpoint ${endpoint}` });
    app.keepStream(
      session,
      {
        kind: "mcp",
        send: (message: JsonRpcMessage) => !sse.closed && stream.send(message),
        close: () => stream.detach(),
      },
      sse,
    );
  },
} satisfies Record<string, RouteHandler>;
