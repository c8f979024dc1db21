// The protocol core as transports see it: the session server (2025-11-25 and earlier) and the
// stateless server (2026-07-28), built side by side over one method table, and the one
// entry that classifies a message and hands it to the server of its revision.
import type { ServerCore } from "./core.ts";
import { Dispatcher, sharedMethods } from "./dispatcher.ts";
import type { Exchange } from "./exchange.ts";
import type { MethodTable } from "./methods/types.ts";
import { refused, type Outcome } from "./outcome.ts";
import { classifyProtocolRevision } from "./revision.ts";
import { StatelessServer, type StatelessOptions } from "./stateless/serve.ts";
import { failure } from "../util/jsonrpc.ts";

export interface Protocol {
  /** Requests in a session (initialize first): 2025-11-25 and earlier. */
  readonly session: Dispatcher;
  /** Requests of 2026-07-28 (no session, `_meta` envelope): the same methods, served statelessly. */
  readonly stateless: StatelessServer;
}

/**
 * `methods` serve both revisions; `statelessOnly` the 2026 revision alone (the tasks extension's methods).
 * `server`: what tool contexts name as `ctx.server` (McpServer passes itself), given here
 * rather than kept in the core, so the core never points back at the object built on it.
 */
export function createProtocol(
  core: ServerCore,
  options: StatelessOptions = {},
  methods: MethodTable = sharedMethods(),
  statelessOnly: MethodTable = {},
  server?: unknown,
): Protocol {
  return { session: new Dispatcher(core, methods, server), stateless: new StatelessServer(core, methods, options, statelessOnly, server) };
}

/**
 * One parsed body from a transport without headers (stdio, handle()), served by the revision
 * it belongs to. A stateless request runs outside the session `exchange` names. HTTP
 * classifies with the version header itself, as it must find the session in between.
 */
export function serveMessage(protocol: Protocol, body: unknown, exchange: Exchange): Promise<Outcome> {
  const revision = classifyProtocolRevision(undefined, body);
  if (revision.kind === "session") return protocol.session.handle(body, exchange);
  if (revision.kind === "refused") return Promise.resolve(refused(revision.refusal, failure(null, revision.error)));
  const outside: Exchange = exchange.session ? { session: null, signal: exchange.signal, send: (m) => exchange.send(m) } : exchange;
  return protocol.stateless.handle(body, outside, null);
}
