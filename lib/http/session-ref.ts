// Which session a request names: the Mcp-Session-Id header, else
// the `session_id` query parameter, else `sessionId`.
import type { IncomingMessage } from "node:http";
import type { Session } from "../session/session.ts";
import type { SessionStore } from "../session/session-table.ts";

export type SessionRef = { kind: "none" } | { kind: "found"; session: Session } | { kind: "unknown" };

const NONE: SessionRef = { kind: "none" };

export function namedSessionId(req: IncomingMessage, query: URLSearchParams): string | null {
  const header = req.headers["mcp-session-id"];
  if (typeof header === "string" && header) return header;
  return query.get("session_id") || query.get("sessionId") || null;
}

export function resolveSession(req: IncomingMessage, query: URLSearchParams, sessions: SessionStore): SessionRef {
  const id = namedSessionId(req, query);
  if (id === null) return NONE;
  const session = sessions.get(id);
  return session ? { kind: "found", session } : { kind: "unknown" };
}
