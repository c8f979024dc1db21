// The one forwarding core: what `start_mcp`'s built-in reverse proxy and the hub gateway
// both do with an exchange. The request goes out on the caller's keep-alive agent (a whole
// body, or a stream piped with back-pressure), the answer's headers resolve it, a client
// gone away destroys it, and its body streams back pausing the upstream whenever the
// client stops reading. Which headers go out is ./headers.ts; what the gateway adds (sessions,
// rewriting, per-person slots) is layered on top in lib/gateway.
import { request, type Agent, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { wireStatus } from "../util/errors.ts";
import type { HeaderList } from "./headers.ts";
import { requestHostname } from "../util/url-host.ts";

/** An upstream's address, parsed once. */
export interface UpstreamTarget {
  readonly hostname: string;
  readonly port: string | number;
  /** Host:port, sent as Host. */
  readonly host: string;
  /** The URL's path without its trailing slash, prepended to every request path. */
  readonly base: string;
}

/** Parsed upstream URLs: a gateway has as many as running tool sessions, and uses one per request. */
const targets = new Map<string, UpstreamTarget>();
const TARGETS_KEPT = 1000;

/** The target of an http:// URL; throws a TypeError for anything else. */
export function upstreamTarget(url: string): UpstreamTarget {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:") throw new TypeError("The forwarder forwards to http:// upstreams only");
    target = { hostname: requestHostname(parsed), port: parsed.port || 80, host: parsed.host, base: parsed.pathname.replace(/\/+$/, "") };
    if (targets.size >= TARGETS_KEPT) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/**
 * Stops an exchange whose client went away. A plain callback rather than an AbortSignal:
 * one per request, and signals cost the proxy path more than the rest of its bookkeeping.
 */
export interface Cancel {
  /** Set by `forward`: destroys the upstream request, and with it an answer still streaming. */
  onCancel?: () => void;
}

/** A Cancel fired when `res` closes before its answer was written out: the client went away. */
export function cancelOnClose(res: ServerResponse): Cancel {
  const cancel: Cancel = {};
  res.once("close", () => {
    if (!res.writableFinished) cancel.onCancel?.();
  });
  return cancel;
}

/** One request the forwarder sends upstream (named apart from lib/mcp's Exchange, a message being served). */
export interface UpstreamRequest {
  agent: Agent;
  target: UpstreamTarget;
  method: string;
  /** Appended to the target's base path; starts with "/". */
  path: string;
  /** As they go out (see ./headers.ts); Host and Content-Length included. */
  headers: HeaderList;
  /** The whole body. */
  body?: Buffer;
  /** Or a body streamed as it arrives, paused while the upstream does not take it. */
  source?: Readable;
  /** How long the upstream may take to answer with headers (ETIMEDOUT); 0 for no bound. */
  headersTimeoutMs: number;
}

const abort = (): Error => Object.assign(new Error("client went away"), { code: "ABORT_ERR" });
const timedOut = (): Error => Object.assign(new Error("upstream timeout"), { code: "ETIMEDOUT" });

/** Resolves with the answer once its headers arrive; rejects with the connection's error (ETIMEDOUT past the bound). */
export function forward(x: UpstreamRequest, cancel: Cancel | AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({
      agent: x.agent,
      hostname: x.target.hostname,
      port: x.target.port,
      method: x.method,
      path: x.target.base + x.path,
      // node:http has long taken the flat list (as rawHeaders; documented since nodejs/node#58049); @types/node 20 knows only the object.
      headers: x.headers as unknown as OutgoingHttpHeaders,
      ...(cancel instanceof AbortSignal ? { signal: cancel } : {}),
    });
    if (!(cancel instanceof AbortSignal)) cancel.onCancel = () => req.destroy(abort());
    // A timer per exchange measured cheaper than one sweep a second over a set of them.
    const timer = x.headersTimeoutMs > 0 ? setTimeout(() => req.destroy(timedOut()), x.headersTimeoutMs) : undefined;
    // `on`: a request answers once (and a later error finds the promise settled); once() would wrap each listener.
    req.on("response", (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
    req.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    if (x.source) x.source.pipe(req);
    else req.end(x.body);
  });
}

/** How an upstream failure is answered: a stable code and status, never the error's own text. */
export interface UpstreamFailure {
  status: number;
  code: "upstream_unavailable" | "upstream_timeout";
  message: string;
}

export function upstreamFailure(err: unknown): UpstreamFailure {
  if ((err as NodeJS.ErrnoException | undefined)?.code === "ETIMEDOUT")
    return { status: wireStatus("upstream_timeout"), code: "upstream_timeout", message: "The upstream server did not answer in time" };
  return { status: wireStatus("upstream_unavailable"), code: "upstream_unavailable", message: "The upstream server is not reachable" };
}

/**
 * Streams the rest of `answer` into `res` (whose headers are written) with back-pressure: the
 * upstream is paused while the client does not read, so a flooding upstream fills its own
 * buffers, not ours. `onChunk` sees each chunk once it is passed on. Resolves when the answer
 * has ended, or either side closed (the other is then destroyed).
 */
export function pipeAnswer(answer: IncomingMessage, res: ServerResponse, onChunk?: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      res.off("drain", resume);
      resolve();
    };
    const resume = (): void => {
      answer.resume();
    };
    res.on("drain", resume);
    res.once("close", () => {
      if (!answer.complete) answer.destroy();
      finish();
    });
    answer.once("error", () => {
      res.destroy();
      finish();
    });
    answer.on("data", (chunk: Buffer) => {
      if (!res.write(chunk)) answer.pause();
      onChunk?.(chunk);
    });
    answer.once("end", () => {
      res.end();
      finish();
    });
  });
}
