// Binding a socket and closing it gracefully: the one way, for the tool server, the gateway
// and the reverse proxy. For an HttpApp also the mount prefix; its close ends streams and
// waits (bounded) for running calls.
import { failureFields } from "../util/logger.ts";
import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { HttpApp } from "./app.ts";
import type { CorsProfile } from "./cors.ts";
import { capConnections, serverOptions, type ConnectionLimits } from "./connection-guard.ts";
import type { MountedRequest } from "./types.ts";
import type { HostGuardOptions } from "./host-guard.ts";
import { stripPrefix } from "./request-url.ts";
import { processTracing } from "../telemetry/tracer.ts";

/** Options of `server.handler()`: the request checks (see HostGuardOptions). */
export interface HandlerOptions extends HostGuardOptions {}

export interface ListenOptions extends HandlerOptions {
  /** Bind address; 127.0.0.1 by default (the launcher binds 0.0.0.0 on a hub). */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * Mount path behind a proxy, e.g. "/weber/123/abc/5": stripped from requests that carry
   * it, and named in the paths the server advertises (a proxy may strip it first).
   */
  pathPrefix?: string;
}

export interface RunningServer {
  /** Base URL with the prefix and a trailing slash, e.g. "http://127.0.0.1:8000/". */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly httpServer: Server;
  close(): Promise<void>;
}

export interface ServeLimits extends ConnectionLimits {
  /** How long close() waits for running calls before cutting connections. */
  closeTimeoutMs: number;
}

/** The host part of a URL reaching a server bound to `host` (a wildcard bind is reached on loopback). */
export function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

export interface Bound {
  readonly server: Server;
  readonly port: number;
}

export interface BindOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  limits: ConnectionLimits;
  /** Socket errors once listening (EMFILE on accept, say): reported, never a crash. */
  onError(err: Error): void;
  /** Answer requests node:http cannot parse with a JSON 400 browser hosts can read (node's own has no CORS headers). */
  badRequestCors?: CorsProfile;
}

function answerUnparsable(server: Server, cors: CorsProfile): void {
  const head = Object.entries(cors.actual)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const answer = (status: string, error: string): string => {
    const body = JSON.stringify({ error });
    return `HTTP/1.1 ${status}\r\n${head}content-type: application/json\r\nconnection: close\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
  };
  const unparsable = answer("400 Bad Request", "bad_request");
  // Headers past node's limit are not malformed, just too large: the status says which.
  const tooLarge = answer("431 Request Header Fields Too Large", "headers_too_large");
  server.on("clientError", (err: NodeJS.ErrnoException, socket) => {
    if (socket.writable) socket.end(err.code === "HPE_HEADER_OVERFLOW" ? tooLarge : unparsable);
    else socket.destroy();
  });
}

/**
 * The one way a server of ours binds: slowloris bounds and the connection cap on, resolved
 * once listening, rejected (nothing left open) when the address cannot be bound.
 */
export function bindHttp(handler: RequestListener, options: BindOptions): Promise<Bound> {
  const server = createServer(serverOptions(options.limits), handler);
  capConnections(server, options.limits.maxConnections);
  if (options.badRequestCors) answerUnparsable(server, options.badRequestCors);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      server.on("error", options.onError);
      resolve({ server, port: (server.address() as AddressInfo).port });
    });
  });
}

export interface CloseSteps {
  /** Once accepting has stopped: end streams, stop children. Awaited. */
  begin?(): void | Promise<void>;
  /** Resolves when no exchange is running; waited for up to `timeoutMs`, then the rest is cut. */
  idle?(): Promise<void>;
  timeoutMs: number;
  /** Once the server has stopped: release what the exchanges used. */
  end?(): void;
}

/**
 * The one graceful close: stop accepting, `begin`, let running exchanges finish (bounded),
 * cut every connection left, wait for the server to stop. The function it returns is safe
 * to call twice: every call gets the same promise.
 */
export function gracefulClose(server: Server, steps: CloseSteps): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((done) => server.close(() => done()));
      server.closeIdleConnections();
      await steps.begin?.();
      if (steps.idle) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([steps.idle(), new Promise<void>((done) => (timer = setTimeout(done, steps.timeoutMs)))]);
        clearTimeout(timer);
      }
      server.closeAllConnections();
      await stopped;
      steps.end?.();
    })());
}

export async function serve(app: HttpApp, host: string, port: number, prefix: string, limits: ServeLimits, onClose: () => void): Promise<RunningServer> {
  // The prefix is mounted the way Express mounts: gone from req.url, kept in req.baseUrl,
  // and the whole path left in req.originalUrl.
  const listener = (req: IncomingMessage, res: Parameters<HttpApp["handle"]>[1]): void => {
    if (prefix) {
      (req as MountedRequest).originalUrl = req.url;
      req.url = stripPrefix(req.url ?? "/", prefix);
      (req as MountedRequest).baseUrl = prefix;
    }
    app.handle(req, res);
  };
  const { server, port: bound } = await bindHttp(listener, {
    host,
    port,
    limits,
    onError: (err) => app.core.logger.error("server socket error", failureFields(err)),
  });
  const graceful = gracefulClose(server, { begin: () => app.closeStreams(), idle: () => app.idle(), timeoutMs: limits.closeTimeoutMs, end: onClose });
  // Spans of the last calls still queued go to the collector before close resolves (bounded by its time limit).
  const close = (): Promise<void> => graceful().then(() => processTracing().exporter?.flush());
  return { url: `http://${urlHost(host)}:${bound}${prefix}/`, host, port: bound, httpServer: server, close };
}
