// A stand-in for the hub gateway in front of real tool servers: one loopback origin that
// serves `/api/mcp/<tool>/mcp` for each app (each listens under that path prefix on its
// own port) and checks the bearer token. Switches make it answer the way a gateway fails:
// a tool that needs a group (403 with the groups), a tool that is down (503), and a
// restart (every session handed out so far becomes 404).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createProxyHandler, type ProxyHandler } from "../../lib/proxy/reverse-proxy.ts";
import type { McpServer } from "../../lib/index.ts";

interface After {
  after(fn: () => unknown): void;
}

export interface StandIn {
  /** The HUB_API value. */
  readonly url: string;
  readonly token: string;
  /** Tools answered with 403 naming these groups. */
  readonly forbidden: Map<string, string[]>;
  /** Tools answered with 503. */
  readonly down: Set<string>;
  /** Requests per tool, for asserting retries. */
  readonly hits: Map<string, number>;
  /** Forgets every session seen so far: later requests naming one get 404. */
  restart(): void;
}

export async function serveApps(t: After, apps: Record<string, McpServer>, token = "hubtok_standin_secret"): Promise<StandIn> {
  const handlers = new Map<string, ProxyHandler>();
  for (const [tool, server] of Object.entries(apps)) {
    const running = await server.listen({ port: 0, pathPrefix: `/api/mcp/${tool}` });
    t.after(() => running.close());
    handlers.set(tool, createProxyHandler({ target: `http://127.0.0.1:${running.port}` }));
  }
  const seen = new Set<string>();
  const gone = new Set<string>();
  const forbidden = new Map<string, string[]>();
  const down = new Set<string>();
  const hits = new Map<string, number>();
  const json = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const front = createServer((req: IncomingMessage, res: ServerResponse) => {
    const tool = /^\/api\/mcp\/([^/?]+)\//.exec(req.url ?? "")?.[1] ?? "";
    hits.set(tool, (hits.get(tool) ?? 0) + 1);
    if (req.headers.authorization !== `Bearer ${token}`) return json(res, 401, { error: "invalid_token" });
    const handler = handlers.get(tool);
    if (!handler) return json(res, 404, { error: `Unknown tool: ${tool}` });
    const groups = forbidden.get(tool);
    if (groups) return json(res, 403, { error: "forbidden", message: `Tool ${tool} needs a group you are not in`, required_groups: groups });
    if (down.has(tool)) return json(res, 503, { error: "Tool session is starting; try again" });
    const session = req.headers["mcp-session-id"];
    if (typeof session === "string") {
      if (gone.has(session)) return json(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } });
      seen.add(session);
    }
    handler(req, res);
  });
  await new Promise<void>((done) => front.listen(0, "127.0.0.1", done));
  t.after(
    () =>
      new Promise<void>((done) => {
        front.closeAllConnections();
        front.close(() => done());
      }),
  );
  const port = (front.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    forbidden,
    down,
    hits,
    restart() {
      for (const id of seen) gone.add(id);
    },
  };
}
