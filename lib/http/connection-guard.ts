// Slowloris bounds for a node:http server, shared by the tool server and the gateway:
// headers and whole requests must arrive in bounded time, an idle keep-alive connection is
// closed, and the number of open connections is capped. Established answers (event streams
// included) are not timed: the bounds cover only what the client sends.
import type { Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionLimits {
  /** Time allowed to receive request headers, counted from the connection's start. */
  headersTimeoutMs: number;
  /** Time allowed to receive a whole request (headers and body). */
  requestTimeoutMs: number;
  /** How long a connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; at the cap an idle one makes room for a new one. */
  maxConnections: number;
}

/**
 * createServer options for `limits`. Node checks the header and request deadlines only
 * every `connectionsCheckingInterval` (30 s by default), which would let an idle socket
 * live well past its bound: the check runs at least four times per headers timeout.
 * (A `requestTimeout` of 0 would also turn the headers timeout off in Node 20.)
 */
export function serverOptions(limits: ConnectionLimits): ServerOptions {
  const headersTimeout = Math.max(1, limits.headersTimeoutMs);
  return {
    headersTimeout,
    requestTimeout: Math.max(headersTimeout, limits.requestTimeoutMs),
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
}

/**
 * Caps open connections. At the cap a new connection closes the oldest one that has no
 * request in progress (a socket still sending headers, or idle between requests); when
 * every connection is busy the new one is refused. So idle sockets, however many an
 * attacker opens, can never keep `/healthz` or a real client out, and running requests
 * and open event streams are never cut to make room.
 */
export function capConnections(server: Server, maxConnections: number): void {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    if (open.size >= maxConnections) {
      let victim: Socket | undefined;
      for (const s of open) {
        if (!answering(s)) {
          victim = s;
          break;
        }
      }
      if (!victim) {
        socket.destroy();
        return;
      }
      open.delete(victim);
      victim.destroy();
    }
    open.add(socket);
    socket.once("close", () => open.delete(socket));
  });
}

/**
 * Whether a connection has a request in progress. node:http attaches the answer it is writing
 * to the socket from the request's headers until that answer has finished (the next pipelined
 * one follows), and has done so since its first release; asking it at the cap, rather than
 * counting requests in and out, costs each request nothing.
 */
function answering(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: unknown })._httpMessage != null;
}
