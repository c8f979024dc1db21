// Tool calls, resource reads and prompt gets, watched until their answer has gone out (on
// the per-tool routes) or their relayed call settled (each entry at /mcp): one audit line
// each, and the per-tool call duration for /metrics. What is kept is the method, the name
// the request gave and sizes, never arguments or results.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ParsedMessage } from "../relay/rewrite.ts";
import type { Caller, GatewayContext } from "./tool-call.ts";
import { AUDITED_METHODS } from "../audit/entry.ts";

/** Filled in as the request goes: the revision once its tool session is known, the trace once made. */
export interface WatchedCall {
  revision?: string;
  traceId?: string;
}

const TOOLS_CALL = Buffer.from('"tools/call"');

/** The calling program, as its User-Agent names it (the first product token), for usage by client. */
export function clientName(req: IncomingMessage): string | undefined {
  const agent = req.headers["user-agent"];
  return typeof agent === "string" && agent !== "" ? agent.split(" ")[0]!.slice(0, 64) : undefined;
}

function targetName(msg: ParsedMessage): string | undefined {
  if (msg.uri) return msg.uri.forwarded;
  const attributes = msg.span?.attributes;
  const name = attributes?.["gen_ai.tool.name"] ?? attributes?.["gen_ai.prompt.name"];
  return typeof name === "string" ? name : undefined;
}

/**
 * Starts watching one JSON-RPC POST, when it is a request the trail keeps; undefined otherwise.
 * A body the gateway did not parse (neither tracing nor auditing) is a tool call when it names the method.
 */
export function watchRpc(ctx: GatewayContext, c: Caller, res: ServerResponse, msg: ParsedMessage, body: Buffer): WatchedCall | undefined {
  const method = msg.method ?? (!msg.span && body.includes(TOOLS_CALL) ? "tools/call" : undefined);
  const event = method === undefined ? undefined : AUDITED_METHODS[method];
  if (!event) return undefined;
  return watch(ctx, c.principal.user, c.tool, res, { event, method: method!, name: targetName(msg), bytesIn: body.length });
}

/** `POST …/tools/{name}`: the REST route is a tool call too. */
export function watchRest(ctx: GatewayContext, c: Caller, res: ServerResponse, name: string): WatchedCall {
  return watch(ctx, c.principal.user, c.tool, res, { event: "tool.call", method: "POST tools", name });
}

/** How a relayed entry of a `/mcp` request ended: its own status (200 once answered; the outcome follows it) and its answer's bytes. */
export interface RoutedEnd {
  status: number;
  bytesOut: number;
}

/** A `/mcp` entry's watch: recorded when `end` is told, not when the HTTP answer (a whole batch's) closes. */
export interface RoutedCall extends WatchedCall {
  end(how: RoutedEnd): void;
}

/**
 * A request the hub connector (`/mcp`) routes to one tool; `params` as the tool will get them.
 * One of a batch's entries ends when its own relayed call settles, so each line has that
 * entry's outcome, time and size rather than the batch's.
 */
export function watchRouted(
  ctx: GatewayContext,
  person: string,
  tool: string,
  req: IncomingMessage,
  method: string,
  params: Record<string, unknown>,
): RoutedCall | undefined {
  const event = AUDITED_METHODS[method];
  if (!event) return undefined;
  const named = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  const what = { event, method, ...(named === undefined ? {} : { name: named }) };
  const started = performance.now();
  let ended = false;
  const call: RoutedCall = {
    end: (how) => {
      if (ended) return;
      ended = true;
      const bytesIn = ctx.audit.active ? Buffer.byteLength(JSON.stringify(params)) : undefined;
      record(ctx, person, tool, req, call, { ...what, bytesIn }, performance.now() - started, how);
    },
  };
  return call;
}

type Watched = { event: (typeof AUDITED_METHODS)[string]; method: string; name?: string; bytesIn?: number };

function watch(ctx: GatewayContext, person: string, tool: string, res: ServerResponse, what: Watched): WatchedCall {
  const watched: WatchedCall = {};
  const started = performance.now();
  const socket = res.req.socket;
  const before = socket.bytesWritten;
  res.once("close", () => {
    const status = res.headersSent ? res.statusCode : 499;
    const bytesIn = what.bytesIn ?? (Number(res.req.headers["content-length"]) || undefined);
    const how = { status, bytesOut: socket.bytesWritten - before };
    record(ctx, person, tool, res.req, watched, { ...what, bytesIn }, performance.now() - started, how);
  });
  return watched;
}

function record(
  ctx: GatewayContext,
  person: string,
  tool: string,
  req: IncomingMessage,
  watched: WatchedCall,
  what: Watched,
  ms: number,
  how: RoutedEnd,
): void {
  if (what.event === "tool.call") ctx.metrics.call(tool, ms);
  if (!ctx.audit.active) return;
  ctx.audit.record({
    ...what,
    person,
    tool,
    revision: watched.revision,
    outcome: how.status < 400 ? "ok" : "error",
    status: how.status,
    ms,
    bytesOut: how.bytesOut,
    client: clientName(req),
    traceId: watched.traceId,
  });
}
