// Gateway MCP sessions: which tool session and upstream session a request continues, read
// from the sealed id it carries (header, `session_id` query or path), and new ones minted
// by asking the tool server for a session over `GET /mcp` (its `endpoint` event names it,
// read with the one event-stream reader: fields in any order, `id` and `retry` included).
import type { IncomingMessage } from "node:http";
import type { Principal } from "./contracts.ts";
import { send, type Upstream } from "./forward.ts";
import { SseReader } from "../http/sse-reader.ts";
import { GatewayError } from "./respond.ts";
import type { SessionBinding, SessionSealer } from "./session-seal.ts";

const MINT_TIMEOUT_MS = 15_000;
/** What the gateway reads of a tool server's stream looking for its `endpoint` event. */
const MAX_ENDPOINT_CHARS = 65_536;

/** The session id a request names, if any: header first, then query, then the path segment. */
export function namedSession(req: IncomingMessage, query: URLSearchParams, pathSession?: string): string | undefined {
  const header = req.headers["mcp-session-id"];
  if (typeof header === "string" && header !== "") return header;
  return query.get("session_id") ?? query.get("sessionId") ?? pathSession;
}

/** Opens a named session for this caller and tool; anything else is "not found", never "forbidden". */
export function openSession(sealer: SessionSealer, id: string, principal: Principal, tool: string): SessionBinding {
  const binding = sealer.open(id);
  if (!binding || binding.user !== principal.user || binding.tool !== tool) {
    throw new GatewayError(404, "unknown_session", "No such session; initialize a new one");
  }
  return binding;
}

/** The `session_id` an endpoint event's URL carries. */
function sessionOf(endpoint: string): string | null {
  return URL.canParse(endpoint, "http://x/") ? new URL(endpoint, "http://x/").searchParams.get("session_id") || null : null;
}

/** Asks the tool server for a new session id. */
export async function mintUpstreamSession(upstream: Upstream): Promise<string> {
  const signal = AbortSignal.timeout(MINT_TIMEOUT_MS);
  const answer = await send(upstream, { method: "GET", path: "mcp", headers: { accept: "text/event-stream" } }, signal).catch(() => {
    throw new GatewayError(502, "upstream_unavailable", "The tool server is not reachable");
  });
  if (answer.statusCode !== 200) {
    answer.resume();
    throw new GatewayError(502, "no_upstream_session", "The tool server did not open a session");
  }
  return new Promise((resolve, reject) => {
    const reader = new SseReader({ maxEventChars: MAX_ENDPOINT_CHARS });
    let seen = 0;
    const fail = (): void => reject(new GatewayError(502, "no_upstream_session", "The tool server did not open a session"));
    answer.on("data", (chunk: Buffer) => {
      // Whatever comes before the endpoint event (comments, other events) is bounded too.
      seen += chunk.length;
      let id: string | null = null;
      let broken = false;
      try {
        for (const event of reader.push(chunk)) id ??= event.event === "endpoint" ? sessionOf(event.data) : null;
      } catch {
        broken = true; // an event too large to be an endpoint
      }
      if (id) {
        answer.destroy();
        resolve(id);
      } else if (broken || seen > MAX_ENDPOINT_CHARS) {
        answer.destroy();
        fail();
      }
    });
    answer.once("end", fail);
    answer.once("error", fail);
    answer.once("close", fail);
  });
}
