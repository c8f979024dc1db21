// The hub connector as the relay's second configuration: a relay over the caller's tool
// sessions, making the relay's moves (../../federation/route-moves.ts) as hub_bridge's does.
// Its servers are a /mcp session's links, each started by the first request for its tool
// (./relay.ts linkFor), not all at initialize as a federation `RelayServer` is: a request for
// every server goes to the links started so far. A request naming one tool goes through
// ./relay.ts `forward` instead, for its stream, answer budget, audit and trace.
import type { Routing } from "../../federation/route-moves.ts";
import { request } from "../relay/upstream-mcp.ts";
import type { PersonView } from "./namespace.ts";
import type { ConnectorSession, Link } from "./sessions.ts";

/** One started link, named by its tool as the namespace labels it. */
export interface LinkServer {
  readonly label: string;
  readonly link: Link;
}

export function linkRouting(s: ConnectorSession, view: PersonView): Routing<LinkServer> {
  const headers = { "mcp-protocol-version": s.protocolVersion };
  return {
    namespace: view,
    started: async () => (await s.started()).map((link) => ({ label: link.tool, link })),
    send: async (server, method, params) => (await request(server.link.up, server.link.session, method, params, headers)).result,
  };
}
