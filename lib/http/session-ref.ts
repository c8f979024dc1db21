// Which session a request names, decided once for the tool server, the gateway and the
// launcher's request log: the Mcp-Session-Id header, else the `session_id` query parameter
// (the legacy SSE transport), else `sessionId`, else a session the path names. An empty value
// names nothing. A repeated header reaches us joined by Node (`a, b`): it is named as sent and
// finds no session, since a space is outside the visible ASCII every issued id is made of.
import type { IncomingMessage } from "node:http";
import type { Session } from "../session/session.ts";
import type { SessionStore } from "../session/session-table.ts";

export type SessionRef = { kind: "none" } | { kind: "found"; session: Session } | { kind: "unknown" };

const NONE: SessionRef = { kind: "none" };

export function namedSessionId(req: IncomingMessage, query?: Pick<URLSearchParams, "get">, pathSession?: string): string | null {
  const header = req.headers["mcp-session-id"];
  if (typeof header === "string" && header) return header;
  return query?.get("session_id") || query?.get("sessionId") || pathSession || null;
}

export function resolveSession(req: IncomingMessage, query: URLSearchParams, sessions: SessionStore): SessionRef {
  const id = namedSessionId(req, query);
  if (id === null) return NONE;
  const session = sessions.get(id);
  return session ? { kind: "found", session } : { kind: "unknown" };
}
