// `{publicUrl}/mcp`: one MCP endpoint serving every tool a person may use. Streamable HTTP
// with gateway-minted sessions for 2025-11-25 clients, stateless 2026-07-28 requests, GET
// streams and DELETE. A POST is answered by lib/mcp (framing, batches, the 2026 checks,
// statuses) over /mcp's method table (./methods.ts), on the request's Door (./door.ts).
import type { IncomingMessage, ServerResponse } from "node:http";
import { readBody } from "../../http/body.ts";
import { httpStatus } from "../../http/status.ts";
import { refused, type Outcome } from "../../mcp/outcome.ts";
import type { Protocol } from "../../mcp/protocol.ts";
import { classify, ErrorCode, failure } from "../../util/jsonrpc.ts";
import type { Principal } from "../contracts/interfaces.ts";
import { CORS, GatewayError, sendJson, sendParseError } from "../contracts/respond.ts";
import { namedSession, revisionOf } from "../relay/mcp-sessions.ts";
import type { ConnectorContext } from "./context.ts";
import { Door } from "./door.ts";
import { connectorProtocol } from "./methods.ts";
import { standaloneStream } from "./relay.ts";

/** lib/mcp serving each connector's POSTs: its method table under both revisions (./methods.ts). */
const protocols = new WeakMap<ConnectorContext, Protocol>();

function protocolOf(cc: ConnectorContext): Protocol {
  let protocol = protocols.get(cc);
  if (!protocol) protocols.set(cc, (protocol = connectorProtocol(cc.event)));
  return protocol;
}

/** initialize params a /mcp session keeps: far above what clients send (capabilities, clientInfo). */
const MAX_INIT_PARAMS_CHARS = 64 * 1024;

async function handlePost(cc: ConnectorContext, principal: Principal, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req, cc.gw.config.limits.maxBodyBytes);
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8"));
  } catch {
    return sendParseError(res);
  }
  const revision = revisionOf(req, value);
  if (revision.kind === "refused") {
    const reply = failure(null, revision.error);
    return sendJson(res, httpStatus(refused(revision.refusal, reply)), reply);
  }
  const batch = Array.isArray(value) ? value : undefined;
  const door = new Door(cc, principal, res, revision.kind === "stateless", batch !== undefined);
  if (door.isStateless) return answer(door, await protocolOf(cc).stateless.handle(value, door, req.headers));
  const single = batch ? undefined : classify(value);
  if (single?.kind === "request" && single.message.method === "initialize") {
    // Kept for the session's life (each tool session opens with them): bounded, so a person's
    // hundred sessions cannot hold the body limit a hundred times over.
    if (JSON.stringify(single.message.params ?? {}).length > MAX_INIT_PARAMS_CHARS) {
      return sendJson(res, 400, failure(single.message.id, { code: ErrorCode.InvalidParams, message: "initialize params are too large" }));
    }
  } else if (single?.kind !== "invalid") {
    // An invalid message is refused as such, session or not.
    await openSession(cc, door);
  }
  answer(door, await protocolOf(cc).session.handle(value, door));
}

/** A single message the gateway refused answers under that refusal's own status, while nothing was written yet. */
function answer(door: Door, outcome: Outcome): void {
  if (door.failed && !door.batch && !door.streaming) throw door.failed;
  door.finish(outcome);
}

async function openSession(cc: ConnectorContext, door: Door): Promise<void> {
  const named = namedSession(door.req);
  if (named === undefined) throw new GatewayError("no_session", "Send initialize first, then the Mcp-Session-Id it answered with");
  door.connector = await cc.table.open(named, door.principal.user);
  door.extra["mcp-session-id"] = door.connector.id;
}

async function handleDelete(cc: ConnectorContext, principal: Principal, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const named = namedSession(req);
  if (named === undefined) throw new GatewayError("no_session", "DELETE needs the Mcp-Session-Id header");
  await cc.table.delete(await cc.table.open(named, principal.user));
  res.writeHead(204, { ...CORS });
  res.end();
}

/** Serves one request to /mcp from an authenticated caller. */
export async function handleConnector(cc: ConnectorContext, principal: Principal, req: IncomingMessage, res: ServerResponse): Promise<void> {
  switch (req.method) {
    case "POST":
      return handlePost(cc, principal, req, res);
    case "GET": {
      const named = namedSession(req);
      if (named === undefined)
        throw new GatewayError("method_not_allowed", "GET needs the Mcp-Session-Id of an initialized session", { allow: "POST, DELETE" });
      return standaloneStream(cc, await cc.table.open(named, principal.user), res);
    }
    case "DELETE":
      return handleDelete(cc, principal, req, res);
    default:
      throw new GatewayError("method_not_allowed", "Use GET, POST or DELETE", { allow: "GET, POST, DELETE" });
  }
}
