// The session proxy path of `app` revisions, `/weber/{session}/{cookie}/{port}/...`, as a
// hub serves it: authenticated by a cookie `hubmcp-session=<session>%3A<token>` (no bearer
// token, so plain SSE clients can use it), forwarded unchanged to the tool server, which
// strips that path itself and so advertises endpoints that lead back here.
import type { IncomingMessage, ServerResponse } from "node:http";
import { relay, send, upstreamFailure, type Cancel } from "../relay/forward.ts";
import { GatewayError } from "../contracts/respond.ts";
import { upstreamOf, type GatewayContext } from "../calls/tool-call.ts";
import { readBody } from "../../http/body.ts";
import { namedSessionId } from "../../http/session-ref.ts";
import { readSessionProxyCookie, tokenValid } from "./session-proxy-cookie.ts";
import type { ToolSessionRecord } from "../tool-sessions/records.ts";

const UNAUTHORIZED = (): GatewayError => new GatewayError("unauthorized", "This session path needs its session cookie");

/**
 * Refuses unless the tool session's account still exists (else `gone()`) and is still in the
 * tool's groups (else 403): a credential for the session is only as good as the account now.
 */
export async function checkAccountNow(
  ctx: Pick<GatewayContext, "accounts" | "config">,
  rec: Pick<ToolSessionRecord, "user" | "tool">,
  gone: () => GatewayError,
): Promise<void> {
  const groups = await ctx.accounts.groupsOf(rec.user);
  if (groups === null) throw gone();
  const required = ctx.config.tools[rec.tool]?.groups ?? [];
  if (required.length > 0 && !required.some((g) => groups.includes(g))) throw new GatewayError("forbidden", "This account may no longer use this tool");
}

/**
 * Answers whether the request was for a session proxy path it may use; the caller logs the
 * user. The cookie must be the tool session's, issued to its account and not expired, and
 * that account must still exist and still be in the tool's groups; only then does a use
 * count against idling out.
 */
export async function handleSessionProxy(ctx: GatewayContext, instance: string, req: IncomingMessage, res: ServerResponse): Promise<string> {
  const sent = readSessionProxyCookie(req.headers.cookie);
  if (!sent || sent.instance !== instance) throw UNAUTHORIZED();
  const rec = await ctx.sessions.byInstance(instance);
  const path = (req.url ?? "/").split("?")[0]!;
  if (!rec?.weberPrefix) throw new GatewayError("unknown_session", "No such tool session");
  if (!tokenValid(ctx.cookieKey, sent.token, instance, rec.user)) throw UNAUTHORIZED();
  await checkAccountNow(ctx, rec, UNAUTHORIZED);
  if (path !== rec.weberPrefix && !path.startsWith(`${rec.weberPrefix}/`)) throw new GatewayError("unknown_session", "No such tool session");
  ctx.sessions.touch(`${rec.user}\n${rec.tool}\n${rec.revision}`);
  const body = req.method === "POST" || req.method === "PUT" ? await readBody(req, ctx.config.limits.maxBodyBytes) : undefined;
  // One person's requests on the tool server are bounded here too, streams included (429 beyond).
  res.once("close", ctx.slots.take(rec.user, rec.url!));
  const cancel: Cancel = {};
  res.once("close", () => {
    if (!res.writableFinished) cancel.onCancel?.();
  });
  let answer;
  try {
    // Forwarded with the mount path: the tool server strips it and builds its endpoints from it.
    answer = await send(
      upstreamOf(ctx, rec),
      { method: req.method ?? "GET", path: (req.url ?? "/").slice(1), headers: req.headers, body, session: namedSessionId(req) ?? undefined },
      cancel,
    );
  } catch (err) {
    throw upstreamFailure(err);
  }
  // Sessions on this path are the tool server's own: its ids pass as they are.
  const minted = answer.headers["mcp-session-id"];
  await relay(
    res,
    answer,
    typeof minted === "string" ? { "mcp-session-id": minted } : {},
    () => ctx.sessions.touch(`${rec.user}\n${rec.tool}\n${rec.revision}`),
    ctx.keepaliveMs,
  );
  return rec.user;
}
