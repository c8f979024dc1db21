// `{publicUrl}/admin/api/tools…`: the tool registry over HTTP for a hub's publishing
// pipeline, with the CLI's operations and checks (./registry.ts). Only an API token of an
// account in gateway.json's `admin.groups` may use it: an OAuth token, which an AI client
// holds, never. CORS is closed: a request or preflight naming another origin is refused,
// and no answer carries CORS headers, so no page elsewhere can read or drive it.
//
//   GET    tools                      every registered tool
//   POST   tools                      import a JSON list of tools (as `hub_gateway tool import`)
//   GET    tools/NAME                 one
//   PUT    tools/NAME                 the tool as given (gateway.json's form)
//   DELETE tools/NAME[?now=1]          remove it
//   PUT    tools/NAME/revisions/R[?default=1]   add or replace one revision
//   DELETE tools/NAME/revisions/R[?now=1]       remove one revision
import type { IncomingMessage, ServerResponse } from "node:http";
import { isRecord } from "../../util/guards.ts";
import { isAdmin } from "../config/admin-settings.ts";
import { bearer, verifyInOrder } from "../identity/auth.ts";
import { ConfigError, type GatewayConfig } from "../config/gateway-config.ts";
import type { Principal, RecordStore, TokenVerifier } from "../contracts/interfaces.ts";
import { GatewayError, knownFailure } from "../contracts/respond.ts";
import { readJsonBody } from "../../http/body.ts";
import { jsonWriter } from "../../http/respond.ts";
import type { AuditEntry } from "../audit/entry.ts";
import { toolChangeLine, type ToolAuditEntry } from "./audit-hook.ts";
import { RegistryError, ToolRegistry, type RegistryErrorCode } from "./registry.ts";

export interface AdminApiContext {
  readonly config: GatewayConfig;
  readonly store: RecordStore;
  readonly verifiers: readonly TokenVerifier[];
  readonly publicUrl: string;
  /** Where each change is recorded (the gateway's audit trail). */
  readonly audit?: (entry: AuditEntry) => void;
}

const sendJson = jsonWriter({ headers: { "cache-control": "no-store" }, started: "destroy" });

const WIRE: Record<RegistryErrorCode, "bad_tool" | "unknown_tool" | "unknown_revision" | "conflict"> = {
  HUBMCP_BAD_IMPORT: "bad_tool",
  HUBMCP_NO_SUCH_TOOL: "unknown_tool",
  HUBMCP_NO_SUCH_REVISION: "unknown_revision",
  HUBMCP_TOOL_IN_CONFIG: "conflict",
  HUBMCP_REVISION_EXISTS: "conflict",
  HUBMCP_DEFAULT_REVISION: "conflict",
};

/** Whether a request target is the admin API's. */
export function isAdminApi(target: string | undefined): boolean {
  return target !== undefined && /^\/admin\/api(\/|\?|$)/.test(target);
}

/** Serves one request; every failure is answered here, without CORS headers. Answers who asked, for the access log. */
export async function handleAdminApi(ctx: AdminApiContext, req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
  const facts: { user?: string } = {};
  try {
    await serve(ctx, req, res, facts);
  } catch (err) {
    const known = wireError(err);
    if (!known) throw err;
    sendJson(res, known.status, { error: known.error, message: known.message }, known.headers);
  }
  return facts.user;
}

function wireError(err: unknown): GatewayError | undefined {
  if (err instanceof RegistryError) return new GatewayError(WIRE[err.code], err.message);
  if (err instanceof ConfigError) return new GatewayError("bad_tool", err.message);
  return knownFailure(err);
}

async function caller(ctx: AdminApiContext, req: IncomingMessage): Promise<Principal> {
  const token = bearer(req);
  if (token === null) throw new GatewayError("unauthorized", "An API token of an operator is required", { "www-authenticate": "Bearer" });
  const principal = await verifyInOrder(ctx.verifiers, token, `${ctx.publicUrl}/admin/api`);
  if (!principal || principal.kind !== "api-token")
    throw new GatewayError("unauthorized", "The bearer is not an API token of this gateway", { "www-authenticate": 'Bearer error="invalid_token"' });
  if (!isAdmin(ctx.config.admin, principal)) throw new GatewayError("forbidden", "Only the hub's operators (admin.groups) may change its tools");
  return principal;
}

async function body(ctx: AdminApiContext, req: IncomingMessage): Promise<unknown> {
  const read = await readJsonBody(req, ctx.config.limits.maxBodyBytes);
  if (!read.ok || read.empty) throw new GatewayError("bad_tool", "The body must be JSON");
  return read.value;
}

async function serve(ctx: AdminApiContext, req: IncomingMessage, res: ServerResponse, facts: { user?: string }): Promise<void> {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(ctx.publicUrl).origin) throw new GatewayError("forbidden", "The admin API answers no other origin");
  const method = req.method ?? "GET";
  if (method === "OPTIONS") throw new GatewayError("forbidden", "The admin API answers no other origin");
  const url = new URL(req.url ?? "/", "http://x");
  const parts = url.pathname.split("/").slice(3).filter(Boolean);
  if (parts[0] !== "tools" || parts.length > 4 || (parts.length > 2 && parts[2] !== "revisions") || parts.length === 3)
    throw new GatewayError("not_found", "No such route");
  const principal = await caller(ctx, req);
  facts.user = principal.user;
  const audit = ctx.audit;
  const registry = new ToolRegistry(ctx.store, {
    config: ctx.config,
    who: principal.user,
    ...(audit ? { onChange: (entry: ToolAuditEntry) => audit(toolChangeLine(entry)) } : {}),
  });
  const [, name, , revision] = parts;
  const flag = (k: string): boolean => ["1", "true"].includes(url.searchParams.get(k) ?? "");
  const allow = (methods: string): never => {
    throw new GatewayError("method_not_allowed", `Use ${methods}`, { allow: methods });
  };
  if (name === undefined) {
    if (method === "GET") return sendJson(res, 200, { tools: (await registry.list()).map(({ name, record }) => ({ name, ...record })) });
    if (method === "POST") return sendJson(res, 200, await registry.import(await body(ctx, req)));
    return allow("GET, POST");
  }
  if (revision === undefined) {
    if (method === "GET") return sendJson(res, 200, { name, ...(await registry.show(name)) });
    if (method === "PUT") {
      const tool = await body(ctx, req);
      if (!isRecord(tool)) throw new ConfigError(`tools.${name}`, "must be an object");
      return sendJson(res, 200, { outcome: await registry.put(name, tool) });
    }
    if (method === "DELETE") return sendJson(res, 200, { outcome: await registry.remove(name, undefined, flag("now")) });
    return allow("GET, PUT, DELETE");
  }
  if (method === "PUT") {
    const spec = await body(ctx, req);
    if (!isRecord(spec)) throw new ConfigError(`tools.${name}.revisions.${revision}`, "must be an object");
    const change = { revision, spec, makeDefault: flag("default") };
    const exists = await registry.has(name);
    return sendJson(res, 200, { outcome: await (exists ? registry.update(name, change) : registry.add(name, change)) });
  }
  if (method === "DELETE") return sendJson(res, 200, { outcome: await registry.remove(name, revision, flag("now")) });
  return allow("PUT, DELETE");
}
