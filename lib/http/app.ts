// The node:http request listener: strips the mount prefix, answers CORS preflights,
// and hands each request to its route. Routes live in ./routes, one concern per file.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServerCore } from "../mcp/core.ts";
import type { Dispatcher } from "../mcp/dispatcher.ts";
import type { JsonRpcMessage } from "../mcp/jsonrpc.ts";
import type { SessionStore } from "../session/session-table.ts";
import type { SessionStream } from "../session/session.ts";
import { isSupportedVersion, SUPPORTED_VERSIONS } from "../mcp/versions.ts";
import { ErrorCode, failure } from "../mcp/jsonrpc.ts";
import { StreamDirectory, type ReplayLimits } from "./event-stream.ts";
import type { HostGuard } from "./host-guard.ts";
import { PREFLIGHT_HEADERS, sendError, sendJson } from "./respond.ts";
import { parseRequestUrl, type RequestUrl } from "./request-url.ts";
import { documentRoutes } from "./routes/documents.ts";
import { messageRoutes } from "./routes/messages.ts";
import { streamRoutes } from "./routes/streams.ts";
import { postTool } from "./routes/tools.ts";
import { serveConsole, wantsConsolePage } from "../console/routes.ts";

export interface HttpOptions {
  /** Largest accepted request body; 16 MiB by default. */
  maxBodyBytes: number;
  /** Interval of the SSE keepalive comment; 15 s by default. */
  keepaliveMs: number;
  /** Unread bytes a stream may hold before it is dropped; 4 MiB by default. */
  maxStreamBufferBytes: number;
  /** DNS-rebinding check of Host and Origin; null when off. */
  guard?: HostGuard | null;
  /** What each resumable stream keeps for Last-Event-ID replay, and the `retry` it announces. */
  replay?: Partial<ReplayLimits>;
  /** Serve the browser tool console at `GET /` (Accept: text/html) and `console/*`; on unless false. */
  console?: boolean;
}

export type RouteHandler = (app: HttpApp, req: IncomingMessage, res: ServerResponse, url: RequestUrl) => void | Promise<void>;
type Method = "GET" | "POST" | "DELETE";
type Route = Partial<Record<Method, RouteHandler>>;

const routes = {
  "/": {
    GET: (app, req, res, url) =>
      app.options.console !== false && wantsConsolePage(req.headers.accept) ? serveConsole(req, res, url.path) : documentRoutes.info(app, req, res),
    POST: messageRoutes.post,
  },
  "/mcp": { GET: streamRoutes.mcp, POST: messageRoutes.post, DELETE: messageRoutes.remove },
  "/sse": { GET: streamRoutes.sse },
  "/openapi.json": { GET: documentRoutes.openapi },
  "/.well-known/mcp.json": { GET: documentRoutes.discovery },
} satisfies Record<string, Route>;

const TOOL_ROUTE: Route = { POST: postTool };
const CONSOLE_ROUTE: Route = { GET: (app, req, res, url) => (app.options.console === false ? sendError(res, 404, "Not found") : serveConsole(req, res, url.path)) };
const STREAM_ROUTES = new Set<Route>([routes["/mcp"], routes["/sse"]]);

function routeFor(path: string): Route | undefined {
  return (routes as Record<string, Route>)[path] ?? (path.startsWith("/tools/") ? TOOL_ROUTE : path.startsWith("/console/") ? CONSOLE_ROUTE : undefined);
}

export class HttpApp {
  readonly core: ServerCore;
  readonly dispatcher: Dispatcher;
  readonly sessions: SessionStore;
  readonly options: HttpOptions;
  /** Legacy `GET /sse` streams: every POST response is also broadcast to them. */
  readonly sseStreams = new Set<SessionStream>();
  /** Resumable streams (GET /mcp and SSE replies to POSTs) per session. */
  readonly streams: StreamDirectory;
  #inflight = 0;
  #idle: (() => void)[] = [];

  constructor(core: ServerCore, dispatcher: Dispatcher, sessions: SessionStore, options: HttpOptions) {
    this.core = core;
    this.dispatcher = dispatcher;
    this.sessions = sessions;
    this.options = options;
    this.streams = new StreamDirectory({ maxEvents: 100, maxBytes: 1024 * 1024, retryMs: 1000, ...options.replay });
  }

  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (this.options.guard) {
      const refused = this.options.guard(req);
      if (refused) {
        req.resume();
        const message = refused === "host" ? "Forbidden: Host not allowed" : "Forbidden: Origin not allowed";
        return sendJson(res, 403, failure(null, { code: ErrorCode.InvalidRequest, message }));
      }
    }
    const version = req.headers["mcp-protocol-version"];
    if (version !== undefined && !isSupportedVersion(version)) {
      req.resume();
      const message = `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_VERSIONS.join(", ")})`;
      return sendJson(res, 400, failure(null, { code: ErrorCode.InvalidRequest, message }));
    }
    const url = parseRequestUrl(req.url, this.core.pathPrefix);
    const route = routeFor(url.path);
    if (!route) return sendError(res, 404, "Not found");
    if (req.method === "OPTIONS") {
      res.writeHead(204, PREFLIGHT_HEADERS);
      res.end();
      return;
    }
    // HEAD answers like GET for documents only: on /sse and /mcp it would mint a session and hold a stream.
    const handler = route[req.method as Method] ?? (req.method === "HEAD" && !STREAM_ROUTES.has(route) ? route.GET : undefined);
    if (!handler) {
      return sendError(res, 405, "Method not allowed", { allow: [...Object.keys(route), "OPTIONS"].join(", ") });
    }
    let result: void | Promise<void>;
    try {
      result = handler(this, req, res, url);
    } catch (err) {
      return this.#failed(res, err);
    }
    if (result instanceof Promise) result.catch((err: unknown) => this.#failed(res, err));
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
    if (this.sseStreams.size === 0) return;
    if (sessionId === null) {
      for (const stream of this.sseStreams) stream.send(message);
      return;
    }
    const session = this.sessions.get(sessionId);
    if (session) for (const stream of session.streams) if (stream.kind === "sse") stream.send(message);
  }

  /** Resolves once no tracked call is running. */
  idle(): Promise<void> {
    return this.#inflight === 0 ? Promise.resolve() : new Promise((resolve) => this.#idle.push(resolve));
  }

  #settle(): void {
    if (--this.#inflight === 0) for (const fn of this.#idle.splice(0)) fn();
  }

  #failed(res: ServerResponse, err: unknown): void {
    this.core.logger.error("request failed", { error: err instanceof Error ? err.stack : String(err) });
    if (!res.headersSent) sendError(res, 500, "Internal server error");
    else res.end();
  }
}
