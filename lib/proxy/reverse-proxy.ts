// A streaming reverse proxy on node:http: what `start_mcp --proxy builtin` runs on a hub
// session, on the one forwarding core (./forwarder.ts) the hub gateway uses too. Bodies
// stream both ways without buffering (SSE events pass as they are written); the mount
// prefix is stripped.
import { Agent, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { silentLogger, type Logger } from "../util/logger.ts";
import { endToEnd, upstreamRequestHeaders, writeHeadFrom } from "./headers.ts";
import { cancelOnClose, forward, pipeAnswer, upstreamFailure, upstreamTarget } from "./forwarder.ts";
import type { ConnectionLimits } from "../http/connection-guard.ts";
import { CORS } from "../http/cors.ts";
import { hostAllowList } from "../http/host-guard.ts";
import { bindHttp, gracefulClose, urlHost } from "../http/listen.ts";
import { normalizePrefix, stripPrefix } from "../http/request-url.ts";
import { jsonWriter } from "../http/respond.ts";

export { stripPrefix };

export interface ReverseProxyOptions {
  /** Upstream origin, e.g. "http://127.0.0.1:8001". Its path, if any, is prepended. */
  target: string | URL;
  /** Mount path stripped from incoming paths, e.g. "/weber/123/abc/7"; paths outside it pass unchanged. */
  pathPrefix?: string;
  /** Time allowed for an upstream answer before 504; 30 s by default, 0 disables. SSE streams are exempt once they start. */
  timeoutMs?: number;
  logger?: Logger;
  /**
   * Host names served besides this machine's own (DNS rebinding: the proxy rewrites Host for
   * its upstream, so it checks the client's itself); "*" turns the check off.
   */
  allowedHosts?: string[];
}

export interface ProxyListenOptions {
  /** 127.0.0.1 by default. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** How long close() lets running exchanges finish before cutting them; 5 s by default. */
  closeTimeoutMs?: number;
  /** Slowloris bounds: headers 20 s, a whole request 120 s, idle keep-alive 5 s, 1,000 connections by default. */
  limits?: Partial<ConnectionLimits>;
}

export interface RunningProxy {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly httpServer: Server;
  /** Stops accepting, waits (bounded) for running exchanges, then cuts the rest. Safe to call twice. */
  close(): Promise<void>;
}

export type ProxyHandler = ((req: IncomingMessage, res: ServerResponse) => void) & {
  /** Exchanges (requests or open streams) still running. */
  readonly active: number;
  /** Resolves when no exchange is running. */
  idle(): Promise<void>;
  /** Drops pooled upstream connections. */
  destroy(): void;
};

/** `{error, message}` with a stable code, and the CORS headers so a browser host can read why the upstream failed. */
const sendJson = jsonWriter({ cors: CORS.toolServer, started: "destroy" });

export function createProxyHandler(options: ReverseProxyOptions): ProxyHandler {
  const target = upstreamTarget(String(options.target));
  const prefix = normalizePrefix(options.pathPrefix);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const logger = options.logger ?? silentLogger;
  const agent = new Agent({ keepAlive: true });
  const allowedHosts = options.allowedHosts ?? [];
  const hostAllowed = allowedHosts.includes("*") ? () => true : hostAllowList(allowedHosts);
  let active = 0;
  let waiters: (() => void)[] = [];

  const settle = (): void => {
    active--;
    if (active === 0) {
      for (const done of waiters) done();
      waiters = [];
    }
  };

  const exchange = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const encrypted = (req.socket as TLSSocket).encrypted === true;
    const headers = upstreamRequestHeaders(req.headers, {
      clientIp: req.socket.remoteAddress,
      host: req.headers.host,
      proto: encrypted ? "https" : "http",
      upstreamHost: target.host,
    });
    let answer: IncomingMessage;
    try {
      // The timeout bounds the wait for an answer: once headers arrive no 504 can be sent, and a
      // long stream or a slow download must not be cut mid-body.
      answer = await forward(
        { agent, target, method: req.method ?? "GET", path: stripPrefix(req.url ?? "/", prefix), headers, source: req, headersTimeoutMs: timeoutMs },
        cancelOnClose(res),
      );
    } catch (err) {
      if (res.destroyed) return;
      const failure = upstreamFailure(err);
      logger.warn(failure.status === 504 ? "Upstream timed out" : "Upstream unavailable", { method: req.method, code: (err as NodeJS.ErrnoException).code });
      sendJson(res, failure.status, { error: failure.code, message: failure.message });
      return;
    }
    writeHeadFrom(res, answer.statusCode ?? 502, endToEnd(answer.headers), answer.statusMessage);
    // Headers out at once, so a stream's client sees it open before the first event.
    res.flushHeaders();
    await pipeAnswer(answer, res);
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (!req.headers.host || !hostAllowed(req.headers.host)) {
      sendJson(res, 403, { error: "host_not_allowed", message: "Host not allowed" });
      return;
    }
    active++;
    void exchange(req, res).finally(settle);
  };

  return Object.assign(handler, {
    get active() {
      return active;
    },
    idle(): Promise<void> {
      return active === 0 ? Promise.resolve() : new Promise<void>((done) => waiters.push(done));
    },
    destroy(): void {
      agent.destroy();
    },
  }) as ProxyHandler;
}

/** Slowloris bounds, as the tool server behind has them (streams are not timed once they answer). */
const PROXY_LIMITS: ConnectionLimits = { headersTimeoutMs: 20_000, requestTimeoutMs: 120_000, keepAliveTimeoutMs: 5_000, maxConnections: 1000 };

/** Runs a proxy server; resolves once it listens. */
export async function startReverseProxy(options: ReverseProxyOptions & ProxyListenOptions): Promise<RunningProxy> {
  const handler = createProxyHandler(options);
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? silentLogger;
  const { server, port } = await bindHttp(handler, {
    host,
    port: options.port ?? 0,
    limits: { ...PROXY_LIMITS, ...options.limits },
    onError: (err) => logger.error("proxy socket error", { error: String(err) }),
  }).catch((err: unknown) => {
    handler.destroy();
    throw err;
  });
  const close = gracefulClose(server, { idle: () => handler.idle(), timeoutMs: options.closeTimeoutMs ?? 5_000, end: () => handler.destroy() });
  return { url: `http://${urlHost(host)}:${port}${normalizePrefix(options.pathPrefix)}/`, host, port, httpServer: server, close };
}
