// The node:http request handler: the tool server's route table on ./router.ts (which decides
// 404, 405, HEAD and OPTIONS), behind the Host and Origin check; each route's handler is in
// ./routes, one concern per file. It is mountable: like an
// Express/Connect middleware it serves `req.url` below the mount path given in `req.baseUrl`.
import { failureFields } from "../util/logger.ts";
import type { ServerResponse } from "node:http";
import type { ServerCore } from "../mcp/core.ts";
import type { Protocol } from "../mcp/protocol.ts";
import type { AsyncStore } from "../tasks/store.ts";
import type { JsonRpcMessage } from "../util/jsonrpc.ts";
import type { SessionStore } from "../session/session-table.ts";
import type { Session, SessionStream } from "../session/session.ts";
import type { SseStream } from "./sse.ts";
import { classifyRouteProtocolRevision } from "../mcp/revision.ts";
import { ErrorCode, failure } from "../util/jsonrpc.ts";
import { StreamDirectory } from "./event-stream.ts";
import { CORS } from "./cors.ts";
import { sendError, sendJson } from "./respond.ts";
import { parseRequestUrl, type RequestUrl } from "./request-url.ts";
import { NEXT, type Params, Router, type Step } from "./router.ts";
import type { HttpOptions, HttpState, MountedRequest, RequestHandler, RouteHandler } from "./types.ts";
import { documentRoutes } from "./routes/documents.ts";
import { messageRoutes } from "./routes/messages.ts";
import { streamRoutes } from "./routes/streams.ts";
import { postTool } from "./routes/tools.ts";
import { serveConsole, wantsConsolePage } from "../console/routes.ts";

/** What a step of the tool server reads: its app, the request's URL, the path's params. */
interface AppCtx {
  readonly app: HttpApp;
  readonly url: RequestUrl;
  params: Params;
}

const step =
  (handler: RouteHandler): Step<AppCtx> =>
  (req, res, ctx) =>
    handler(ctx.app, req, res, ctx.url);

const home: RouteHandler = (app, req, res, url) =>
  app.options.console !== false && wantsConsolePage(req.headers.accept) ? serveConsole(req, res, url.path) : documentRoutes.info(app, req, res, url);
const consolePage: RouteHandler = (app, req, res, url) => (app.options.console === false ? sendError(res, 404, "Not found") : serveConsole(req, res, url.path));

/** DNS rebinding: a foreign Host or Origin is refused before anything else, unknown paths included. */
const guard: Step<AppCtx> = (req, res, { app }) => {
  const refused = app.options.guard?.(req);
  if (!refused) return NEXT;
  req.resume();
  const message = refused === "host" ? "Forbidden: Host not allowed" : "Forbidden: Origin not allowed";
  sendJson(res, 403, failure(null, { code: ErrorCode.InvalidRequest, message }));
};

/**
 * A version header this server does not speak is refused on any route but a POST to the MCP
 * endpoint, which is judged once its body is read: a 2026-07-28 request answers an unknown
 * version with a JSON-RPC error naming the supported ones (routes/messages.ts).
 */
const revisionHeader: Step<AppCtx> = (req, res, { url }) => {
  const version = req.headers["mcp-protocol-version"];
  if (version === undefined || (req.method === "POST" && (url.path === "/mcp" || url.path === "/"))) return NEXT;
  const revision = classifyRouteProtocolRevision(String(version));
  if (revision.kind !== "refused") return NEXT;
  req.resume();
  sendJson(res, 400, failure(null, revision.error));
};

// HEAD answers like GET for documents only: on /sse and /mcp it would mint a session and hold a stream.
const router = new Router<AppCtx>(
  [
    { path: "/", methods: { GET: step(home), POST: step(messageRoutes.post) } },
    { path: "/mcp", methods: { GET: step(streamRoutes.mcp), POST: step(messageRoutes.post), DELETE: step(messageRoutes.remove) }, head: false },
    { path: "/sse", methods: { GET: step(streamRoutes.sse) }, head: false },
    { path: "/openapi.json", methods: { GET: step(documentRoutes.openapi) } },
    { path: "/.well-known/mcp.json", methods: { GET: step(documentRoutes.discovery) } },
    { path: "/tools/*", methods: { POST: step(postTool) } },
    { path: "/console/*", methods: { GET: step(consolePage) } },
  ],
  {
    before: [guard, revisionHeader],
    cors: CORS.toolServer,
    notFound: (_req, res) => sendError(res, 404, "Not found"),
    methodNotAllowed: (_req, res, _ctx, allow) => sendError(res, 405, "Method not allowed", { allow }),
    failed: (err, _req, res, { app }) => app.failed(res, err),
  },
);

export class HttpApp implements HttpState {
  readonly core: ServerCore;
  /** The protocol core: session and stateless servers. */
  readonly protocol: Protocol;
  readonly sessions: SessionStore;
  /** Background runs of async tools, for `POST /tools/<name>`. */
  readonly runs: AsyncStore;
  readonly options: HttpOptions;
  /** Legacy `GET /sse` streams: every POST response is also broadcast to them. */
  readonly #sseStreams = new Set<SessionStream>();
  /** Every `GET /sse` and `GET /mcp` connection this app holds open, for close(). */
  readonly #openStreams = new Set<SessionStream>();
  /** Resumable streams (GET /mcp and SSE replies to POSTs) per session. */
  readonly streams: StreamDirectory;
  #inflight = 0;
  #idle: (() => void)[] = [];

  constructor(core: ServerCore, protocol: Protocol, sessions: SessionStore, runs: AsyncStore, options: HttpOptions) {
    this.core = core;
    this.protocol = protocol;
    this.sessions = sessions;
    this.runs = runs;
    this.options = options;
    this.streams = new StreamDirectory({ maxEvents: 100, maxBytes: 1024 * 1024, retryMs: 1000, ...options.replay });
  }

  readonly handle: RequestHandler = (req, res, next) => {
    const url = parseRequestUrl(req.url, mountPath(req as MountedRequest));
    const match = router.match(url.path);
    // Mounted in a larger app, a path that is not ours belongs to the next handler.
    if (!match && next) return next();
    void router.serve(match, req, res, { app: this, url, params: {} });
  };

  /**
   * Counts a running call until it settles, so close() can wait for it. Routes wrap the
   * call itself, not the body upload before it: a client stalled mid-upload must not
   * hold a shutdown for the whole grace period.
   */
  track<T>(work: Promise<T>): Promise<T> {
    this.#inflight++;
    return work.finally(() => this.#settle());
  }

  /** Broadcast rule: a response goes to the `/sse` streams of its session, or to all of them without one. */
  broadcast(message: JsonRpcMessage, sessionId: string | null): void {
    if (this.#sseStreams.size === 0) return;
    if (sessionId === null) {
      for (const stream of this.#sseStreams) stream.send(message);
      return;
    }
    const session = this.sessions.get(sessionId);
    if (session) for (const stream of session.streams) if (stream.kind === "sse") stream.send(message);
  }

  /** Ends the connections this app holds; sessions outlive them (another transport may serve them). */
  closeStreams(): void {
    this.protocol.stateless.listeners.closeAll();
    for (const stream of [...this.#openStreams]) stream.close();
  }

  /** Registers a connection with its session and this app for as long as it is open. */
  keepStream(session: Session, stream: SessionStream, connection: SseStream): void {
    session.streams.add(stream);
    this.#openStreams.add(stream);
    if (stream.kind === "sse") this.#sseStreams.add(stream);
    connection.onClose(() => {
      session.streams.delete(stream);
      this.#openStreams.delete(stream);
      this.#sseStreams.delete(stream);
      session.touch();
    });
  }

  /** Resolves once no tracked call is running. */
  idle(): Promise<void> {
    return this.#inflight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  #settle(): void {
    if (--this.#inflight === 0) for (const fn of this.#idle.splice(0)) fn();
  }

  /** A route that threw or rejected: logged, and answered 500 if nothing was sent yet. */
  failed(res: ServerResponse, err: unknown): void {
    this.core.logger.error("request failed", { ...failureFields(err) });
    if (!res.headersSent) sendError(res, 500, "Internal server error");
    else res.end();
  }
}

/** Where the handler is mounted: Express's `baseUrl`, else what Connect cut from `originalUrl`. */
function mountPath(req: MountedRequest): string | undefined {
  if (req.baseUrl !== undefined) return req.baseUrl;
  const { originalUrl, url } = req;
  if (originalUrl === undefined || url === undefined || originalUrl === url) return undefined;
  const path = (u: string): string => u.split("?", 1)[0]!;
  const whole = path(originalUrl);
  const below = path(url);
  if (below === "/" && !whole.endsWith("/")) return whole;
  return whole.endsWith(below) ? whole.slice(0, whole.length - below.length) : undefined;
}
