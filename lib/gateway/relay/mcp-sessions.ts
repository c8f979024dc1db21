// Gateway MCP sessions: which tool session and upstream session a request continues, read
// from the sealed id it carries (header, `session_id` query or path), and new ones minted
// on routes where no client initialized, by initializing as any MCP client does.
import type { IncomingMessage } from "node:http";
import type { Principal } from "../contracts/interfaces.ts";
import type { Upstream } from "./forward.ts";
import { GatewayError } from "../contracts/respond.ts";
import type { Query } from "../contracts/routes.ts";
import { namedSessionId } from "../../http/session-ref.ts";
import { classifyProtocolRevision, type Revision } from "../../mcp/revision.ts";
import type { SessionBinding, SessionSealer } from "./session-seal.ts";
import { GATEWAY_CLIENT, initialize } from "./upstream-mcp.ts";

const MINT_TIMEOUT_MS = 15_000;
/** An initialize answer is small; a tool server sending more is not opening a session. */
const MAX_INITIALIZE_BYTES = 1024 * 1024;

/** The session id a request names, if any: header first, then query, then the path segment. */
export function namedSession(req: IncomingMessage, query?: Query, pathSession?: string): string | undefined {
  return namedSessionId(req, query, pathSession) ?? undefined;
}

/** Opens a named session for this caller and tool; anything else is "not found", never "forbidden". */
export function openSession(sealer: SessionSealer, id: string, principal: Principal, tool: string): SessionBinding {
  const binding = sealer.open(id);
  if (!binding || binding.user !== principal.user || binding.tool !== tool) {
    throw new GatewayError("unknown_session", "No such session; initialize a new one");
  }
  return binding;
}

/**
 * Opens a session on the tool server for a gateway session no client initialized (the
 * bootstrap routes): `initialize` as the gateway, then `notifications/initialized`. The
 * answer's Mcp-Session-Id names it; "" stands for a server that keeps no sessions.
 */
export async function mintUpstreamSession(upstream: Upstream): Promise<string> {
  try {
    const opened = await initialize(upstream, { ...GATEWAY_CLIENT }, AbortSignal.timeout(MINT_TIMEOUT_MS), MAX_INITIALIZE_BYTES);
    return opened.session ?? "";
  } catch (err) {
    if (err instanceof GatewayError && (err.error === "upstream_unavailable" || err.error === "upstream_timeout")) throw err;
    throw new GatewayError("no_upstream_session", "The tool server did not open a session");
  }
}

/**
 * The revision a request belongs to, decided as the tool server decides it (lib/mcp/revision.ts):
 * from the MCP-Protocol-Version header and, once read, the body (a 2026-07-28 `_meta` envelope
 * sent without the header is stateless too, and then refused by the 2026 checks).
 */
export function revisionOf(req: IncomingMessage, body?: unknown): Revision {
  const version = req.headers["mcp-protocol-version"];
  return classifyProtocolRevision(typeof version === "string" ? version : undefined, body);
}

/**
 * A MCP 2026-07-28 request needs no session: none is looked up or minted, and a stray
 * Mcp-Session-Id is not sent on. Routes that forward the body unread decide on the header
 * (the tool server classifies the body again and refuses what does not fit).
 */
export function isStateless(req: IncomingMessage, body?: unknown): boolean {
  return revisionOf(req, body).kind === "stateless";
}
