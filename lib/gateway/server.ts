// The hub gateway as an HTTP server: a table of steps in dependency order, each naming the
// part it adds and its builder (./assembly/assemble.ts). The parts built before it listens
// are ./assembly/parts.ts's; then the keys, the socket with the route table
// (./edge/route-table.ts, handlers from ./assembly/routes.ts, access log from
// ./assembly/access-log.ts) and what needs its address (./assembly/listening.ts). `close`
// undoes the steps in reverse: the tools watch, the connector, the socket, the upstream
// agent's sockets, the tool sessions, then what is still queued (the audit trail's last
// lines, the spans, the OAuth server's background writes). No request can crash the process.
import { upstreamAgent } from "./relay/forward.ts";
import { connector, gatewayContext, identityChecked, listen, sessionKeys, watchTools } from "./assembly/listening.ts";
import type { GatewayOptions, RunningGateway } from "./assembly/options.ts";
import { PARTS } from "./assembly/parts.ts";
import type { Listening } from "./assembly/routes.ts";

export type { GatewayOptions, RunningGateway } from "./assembly/options.ts";

/** The parts (./assembly/parts.ts), then the socket and what needs its address; the agent is this gateway's own, so close leaves no socket open. */
const GATEWAY = PARTS.add("keys", sessionKeys)
  .add("identityChecked", identityChecked)
  .add("agent", upstreamAgent, (agent) => agent.destroy())
  .add("listening", (): Listening => ({}))
  .add("http", listen, (http) => http.close())
  .add("context", gatewayContext)
  .add("connector", connector, (c) => c.table.close())
  .add("watch", watchTools, (_, { live }) => live.close());

export async function startGateway(options: GatewayOptions): Promise<RunningGateway> {
  const { parts, close } = await GATEWAY.assemble({ options });
  const { url, port, server } = parts.http;
  return { url, publicUrl: parts.publicUrl.value, port, httpServer: server, close };
}
