// Tool calls, resource reads and prompt gets on the tool routes, watched until their answer
// has gone out: one audit line each, and the per-tool call duration for /metrics. What is
// kept is the method, the name the request gave and sizes, never arguments or results.
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

/** A request the hub connector (`/mcp`) routes to one tool; `params` as the tool will get them. */
export function watchRouted(
  ctx: GatewayContext,
  person: string,
  tool: string,
  res: ServerResponse,
  method: string,
  params: Record<string, unknown>,
): WatchedCall | undefined {
  const event = AUDITED_METHODS[method];
  if (!event) return undefined;
  const named = typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : undefined;
  return watch(ctx, person, tool, res, named === undefined ? { event, method } : { event, method, name: named });
}

function watch(
  ctx: GatewayContext,
  person: string,
  tool: string,
  res: ServerResponse,
  what: { event: (typeof AUDITED_METHODS)[string]; method: string; name?: string; bytesIn?: number },
): WatchedCall {
  const watched: WatchedCall = {};
  const started = performance.now();
  const socket = res.req.socket;
  const before = socket.bytesWritten;
  res.once("close", () => {
    const ms = performance.now() - started;
    if (what.event === "tool.call") ctx.metrics.call(tool, ms);
    if (!ctx.audit.active) return;
    const status = res.headersSent ? res.statusCode : 499;
    ctx.audit.record({
      ...what,
      person,
      tool,
      revision: watched.revision,
      outcome: status < 400 ? "ok" : "error",
      status,
      ms,
      bytesIn: what.bytesIn ?? (Number(res.req.headers["content-length"]) || undefined),
      bytesOut: socket.bytesWritten - before,
      client: clientName(res.req),
      traceId: watched.traceId,
    });
  });
  return watched;
}
