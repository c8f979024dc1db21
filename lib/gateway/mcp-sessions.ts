// Gateway MCP sessions: which tool session and upstream session a request continues, read
// from the sealed id it carries (header, `session_id` query or path), and new ones minted
// by asking the tool server for a session over `GET /mcp` (its `endpoint` event names it).
import type { IncomingMessage } from "node:http";
import type { Principal } from "./contracts.ts";
import { send, type Upstream } from "./forward.ts";
import { GatewayError } from "./respond.ts";
import type { SessionBinding, SessionSealer } from "./session-seal.ts";

const MINT_TIMEOUT_MS = 15_000;

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
    let text = "";
    const fail = (): void => reject(new GatewayError(502, "no_upstream_session", "The tool server did not open a session"));
    answer.setEncoding("utf8");
    answer.on("data", (chunk: string) => {
      text += chunk;
      const m = /event: *endpoint\r?\ndata: *([^\r\n]*)/.exec(text);
      const id = m ? new URL(m[1]!, "http://x/").searchParams.get("session_id") : null;
      if (id) {
        answer.destroy();
        resolve(id);
      } else if (text.length > 65536) {
        answer.destroy();
        fail();
      }
    });
    answer.once("end", fail);
    answer.once("error", fail);
    answer.once("close", fail);
  });
}
