// Binding a socket for an HttpApp: server limits on by default, the mount prefix, and a
// close that stops accepting, ends streams, waits (bounded) for running calls and is safe
// to call twice.
import { failureFields } from "../util/logger.ts";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { HttpApp } from "./app.ts";
import { capConnections, serverOptions, type ConnectionLimits } from "./connection-guard.ts";
import type { MountedRequest } from "./types.ts";
import type { HostGuardOptions } from "./host-guard.ts";
import { stripPrefix } from "./request-url.ts";

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

export function serve(app: HttpApp, host: string, port: number, prefix: string, limits: ServeLimits, onClose: () => void): Promise<RunningServer> {
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
  const server = createServer(serverOptions(limits), listener);
  capConnections(server, limits.maxConnections);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      // After listening, an accept error (EMFILE, say) must be reported, not crash the process.
      server.on("error", (err) => app.core.logger.error("server socket error", failureFields(err)));
      const bound = (server.address() as AddressInfo).port;
      let closing: Promise<void> | null = null;
      const close = (): Promise<void> =>
        (closing ??= (async () => {
          const stopped = new Promise<void>((done) => server.close(() => done()));
          app.closeStreams();
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([app.idle(), new Promise<void>((done) => (timer = setTimeout(done, limits.closeTimeoutMs)))]);
          clearTimeout(timer);
          server.closeAllConnections();
          await stopped;
          onClose();
        })());
      resolve({ url: `http://${urlHost(host)}:${bound}${prefix}/`, host, port: bound, httpServer: server, close });
    });
  });
}
