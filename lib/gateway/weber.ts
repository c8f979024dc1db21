// The session proxy path of `app` revisions, `/weber/{session}/{cookie}/{port}/...`, as a
// hub serves it: authenticated by a cookie `hubmcp-session=<session>%3A<token>` (no bearer
// token, so plain SSE clients can use it), forwarded unchanged to the tool server, which
// strips that path itself and so advertises endpoints that lead back here.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { relay, send, upstreamFailure, type Cancel } from "./forward.ts";
import { GatewayError } from "./respond.ts";
import { cookieToken, SESSION_COOKIE, type GatewayContext } from "./tool-routes.ts";
import { readBody } from "./request-body.ts";

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Answers whether the request was for a session proxy path it may use; the caller logs the user. */
export async function handleWeber(ctx: GatewayContext, instance: string, req: IncomingMessage, res: ServerResponse): Promise<string> {
  const raw = cookieValue(req.headers.cookie, SESSION_COOKIE);
  let decoded = "";
  try {
    decoded = decodeURIComponent(raw ?? "");
  } catch {
    decoded = "";
  }
  const colon = decoded.indexOf(":");
  const ok = colon !== -1 && sameText(decoded.slice(0, colon), instance) && sameText(decoded.slice(colon + 1), cookieToken(ctx.cookieKey, instance));
  if (!ok) throw new GatewayError(401, "unauthorized", "This session path needs its session cookie");
  const rec = await ctx.sessions.byInstance(instance);
  const path = (req.url ?? "/").split("?")[0]!;
  if (!rec?.weberPrefix || (path !== rec.weberPrefix && !path.startsWith(`${rec.weberPrefix}/`))) {
    throw new GatewayError(404, "unknown_session", "No such tool session");
  }
  ctx.sessions.touch(`${rec.user}\n${rec.tool}\n${rec.revision}`);
  const body = req.method === "POST" || req.method === "PUT" ? await readBody(req, ctx.config.limits.maxBodyBytes) : undefined;
  const cancel: Cancel = {};
  res.once("close", () => {
    if (!res.writableFinished) cancel.onCancel?.();
  });
  let answer;
  try {
    // Forwarded with the mount path: the tool server strips it and builds its endpoints from it.
    const session = req.headers["mcp-session-id"];
    answer = await send(
      { url: rec.url!, cookie: rec.cookie },
      { method: req.method ?? "GET", path: (req.url ?? "/").slice(1), headers: req.headers, body, session: typeof session === "string" ? session : undefined },
      cancel,
    );
  } catch (err) {
    throw upstreamFailure(err);
  }
  // Sessions on this path are the tool server's own: its ids pass as they are.
  const minted = answer.headers["mcp-session-id"];
  await relay(res, answer, typeof minted === "string" ? { "mcp-session-id": minted } : {}, () => ctx.sessions.touch(`${rec.user}\n${rec.tool}\n${rec.revision}`), ctx.keepaliveMs);
  return rec.user;
}
