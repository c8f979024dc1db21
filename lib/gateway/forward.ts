// One exchange with a tool server: the request goes out with the client's end-to-end
// headers (never its bearer token or cookies), and the answer comes back either as it
// is, byte for byte, or, for the few methods the gateway rewrites, parsed and re-sent.
// Event streams are relayed unbuffered with a comment at once and keepalives between events.
import { Agent, request, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import { endToEnd, isIdentityHeader } from "../proxy/headers.ts";
import { UPSTREAM_SOCKETS } from "./config.ts";
import { CORS, GatewayError } from "./respond.ts";
import { BodyError, readBody } from "../http/body.ts";
import { formatComment } from "../http/sse.ts";

export const KEEPALIVE_MS = 15_000;
const HEADERS_TIMEOUT_MS = 300_000;
// Accept-Encoding too: the gateway relays bodies as they come and may rewrite some, so it
// asks the tool server for identity encoding and never compresses streams.
const DROPPED_REQUEST = new Set(["authorization", "cookie", "host", "content-length", "mcp-session-id", "origin", "referer", "accept-encoding"]);
const DROPPED_RESPONSE = new Set(["mcp-session-id", "set-cookie"]);
/** Answers up to this size are read whole and sent in one write; larger ones stream through. */
const SMALL_ANSWER_BYTES = 64 * 1024;

const agent = new Agent({ keepAlive: true, maxSockets: UPSTREAM_SOCKETS });

export interface Upstream {
  /** Tool server base URL with a trailing slash. */
  url: string;
  cookie?: string;
}

export interface Outgoing {
  method: string;
  /** Path below the base URL, without a leading slash, query included. */
  path: string;
  headers: IncomingHttpHeaders;
  body?: Buffer;
  /** The tool server's own session id to send, if any. */
  session?: string;
  /** Replaces the client's Accept (to get plain JSON for answers the gateway rewrites). */
  accept?: string;
  /** What the gateway vouches for, in place of any X-Forwarded-* / Forwarded the client sent. */
  vouched?: Vouched;
}

/** Sent as X-Forwarded-User, X-Forwarded-For and X-Forwarded-Proto. */
export interface Vouched {
  /** The authenticated person. */
  user: string;
  /** The client's address as the gateway's socket saw it. */
  address?: string;
  /** The scheme of the gateway's public URL. */
  proto: string;
}

interface Target {
  hostname: string;
  port: string | number;
  host: string;
  pathname: string;
}

/** Parsed tool server URLs: there are as many as running tool sessions, and each is used per request. */
const targets = new Map<string, Target>();

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (!target) {
    const base = new URL(url);
    target = { hostname: base.hostname, port: base.port || 80, host: base.host, pathname: base.pathname };
    if (targets.size >= 1000) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/**
 * Stops an exchange whose client went away. A plain callback rather than an AbortSignal:
 * one per request, and signals cost the proxy path more than the rest of its bookkeeping.
 */
export interface Cancel {
  /** Set by `send`: destroys the upstream request. */
  onCancel?: () => void;
}

/** Resolves when the response headers arrive; rejects with the connection error. */
export function send(upstream: Upstream, out: Outgoing, cancel: AbortSignal | Cancel): Promise<IncomingMessage> {
  const base = targetOf(upstream.url);
  const headers: OutgoingHttpHeaders = endToEnd(out.headers, DROPPED_REQUEST);
  // A client could otherwise claim to be someone else to a tool server that trusts its proxy.
  for (const name of Object.keys(headers)) if (isIdentityHeader(name)) delete headers[name];
  if (out.vouched) {
    headers["x-forwarded-user"] = out.vouched.user;
    headers["x-forwarded-proto"] = out.vouched.proto;
    if (out.vouched.address) headers["x-forwarded-for"] = out.vouched.address;
  }
  if (out.accept) headers.accept = out.accept;
  if (out.session) headers["mcp-session-id"] = out.session;
  if (upstream.cookie) headers.cookie = upstream.cookie;
  if (out.body) headers["content-length"] = out.body.length;
  headers.host = base.host;
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request({
      agent,
      hostname: base.hostname,
      port: base.port,
      method: out.method,
      path: base.pathname + out.path,
      headers,
      ...(cancel instanceof AbortSignal ? { signal: cancel } : {}),
    });
    if (!(cancel instanceof AbortSignal)) cancel.onCancel = () => req.destroy(Object.assign(new Error("client went away"), { code: "ABORT_ERR" }));
    const timer = setTimeout(() => req.destroy(Object.assign(new Error("upstream timeout"), { code: "ETIMEDOUT" })), HEADERS_TIMEOUT_MS);
    req.once("response", (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(out.body);
  });
}

/** Why an upstream could not be reached, as the client's answer. */
export function upstreamFailure(err: unknown): GatewayError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ETIMEDOUT") return new GatewayError(504, "upstream_timeout", "The tool server did not answer in time");
  return new GatewayError(502, "upstream_unavailable", "The tool server is not reachable");
}

export function isEventStream(answer: IncomingMessage): boolean {
  return /^text\/event-stream/i.test(String(answer.headers["content-type"] ?? ""));
}

function answerHeaders(answer: IncomingMessage, extra: Record<string, string>): OutgoingHttpHeaders {
  const headers = endToEnd(answer.headers, DROPPED_RESPONSE);
  for (const name of Object.keys(headers)) if (name.startsWith("access-control-")) delete headers[name];
  return Object.assign(headers, CORS, extra);
}

/** Starts an event stream to the client: unbuffered, uncompressed, a comment at once. */
export function openStream(res: ServerResponse, status: number, headers: OutgoingHttpHeaders): void {
  delete headers["content-length"];
  res.writeHead(status, {
    ...headers,
    "content-type": "text/event-stream",
    "cache-control": "no-cache, no-transform",
    "x-accel-buffering": "no",
  });
  res.write(formatComment("stream open"));
}

/**
 * Passes the answer through. Streams get keepalive comments, inserted only between events
 * (after a blank line), so an event is never split. `onTick` runs with each keepalive.
 */
export function relay(
  res: ServerResponse,
  answer: IncomingMessage,
  extra: Record<string, string>,
  onTick: () => void = () => {},
  keepaliveMs = KEEPALIVE_MS,
): Promise<void> {
  const headers = answerHeaders(answer, extra);
  const status = answer.statusCode ?? 502;
  return new Promise((resolve) => {
    const done = (): void => {
      clearInterval(timer);
      resolve();
    };
    let timer: NodeJS.Timeout | undefined;
    res.once("close", () => {
      if (!answer.complete) answer.destroy();
      done();
    });
    answer.once("error", () => res.destroy());
    if (!isEventStream(answer)) {
      const length = Number(answer.headers["content-length"]);
      if (length <= SMALL_ANSWER_BYTES) {
        // Headers and body in one write, without a pipe's listeners.
        readAll(answer, SMALL_ANSWER_BYTES).then((body) => {
          if (!res.destroyed) {
            res.writeHead(status, headers);
            res.end(body);
          }
          done();
        }, () => res.destroy());
        return;
      }
      res.writeHead(status, headers);
      answer.pipe(res);
      answer.once("end", done);
      return;
    }
    openStream(res, status, headers);
    let atBoundary = true;
    answer.on("data", (chunk: Buffer) => {
      // Back-pressure: a client that reads nothing stops the tool server, not fills the gateway.
      if (!res.write(chunk)) {
        answer.pause();
        res.once("drain", () => answer.resume());
      }
      const text = chunk.toString("latin1");
      atBoundary = text.endsWith("\n\n") || text.endsWith("\r\n\r\n");
    });
    answer.once("end", () => {
      res.end();
      done();
    });
    timer = setInterval(() => {
      onTick();
      if (atBoundary) res.write(formatComment("keepalive"));
    }, keepaliveMs);
    timer.unref();
  });
}

/** The whole answer body, bounded; `grow` sees the size so far before each chunk is kept, and may refuse it by throwing. */
export async function readAll(stream: IncomingMessage, max: number, grow: (size: number) => void = () => {}): Promise<Buffer> {
  try {
    return await readBody(stream, max, { overflow: "destroy", grow });
  } catch (err) {
    if (!(err instanceof BodyError)) throw err;
    if (err.code === "HUBMCP_BODY_TOO_LARGE") throw new GatewayError(502, "upstream_too_large", "The tool server's answer is too large");
    throw new GatewayError(502, "upstream_unavailable", "The tool server's answer broke off");
  }
}

/** Sends a rewritten answer as JSON, keeping the upstream status and headers. */
export function sendRewritten(res: ServerResponse, answer: IncomingMessage, body: string | Buffer, extra: Record<string, string>): void {
  const headers = answerHeaders(answer, extra);
  headers["content-length"] = Buffer.byteLength(body);
  res.writeHead(answer.statusCode ?? 502, headers);
  res.end(body);
}
