// A stand-in for many tool servers at once, for the 300-tool catalog only: each path
// `/tNNN/mcp` answers initialize, tools/list (one tool with a generated description) and
// ends sessions, counting the listings it served so a spec can see the catalog filled once.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const TOPICS = [
  "fourier transform",
  "protein folding",
  "orbit propagation",
  "heat diffusion",
  "gene expression",
  "crystal lattice",
  "river discharge",
  "seismic inversion",
  "plasma turbulence",
  "ocean salinity",
];
const VERBS = ["computes", "estimates", "simulates", "plots", "fits"];

/** The generated description of tool `i`: ten topics times five verbs, each pair once in 50. */
export function describe(i: number): string {
  return `${VERBS[Math.floor(i / TOPICS.length) % VERBS.length]} the ${TOPICS[i % TOPICS.length]} of sample ${i}`;
}

export interface StandIn {
  url: string;
  /** Tools (path segments) whose list changed after a call: their description says so. */
  changed: Set<string>;
  /** tools/list requests served, per path segment (`t7`). */
  listings: Map<string, number>;
  server: Server;
}

export async function startStandIn(): Promise<StandIn> {
  const listings = new Map<string, number>();
  const changed = new Set<string>();
  const server = createServer((req, res) => {
    const segment = (req.url ?? "/").split("/")[1] ?? "";
    const i = Number(segment.replace(/^t/, "").replace(/v2$/, ""));
    if (req.method === "DELETE") return void res.writeHead(200).end();
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const m = JSON.parse(body) as { id?: unknown; method: string };
      if (m.id === undefined) return void res.writeHead(202).end();
      let result: unknown;
      if (m.method === "initialize")
        result = { protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: segment, version: "1" } };
      else if (m.method === "tools/list") {
        listings.set(segment, (listings.get(segment) ?? 0) + 1);
        const version = segment.endsWith("v2") ? " (version 2)" : "";
        const note = changed.has(segment) ? " (changed)" : "";
        result = { tools: [{ name: "run", description: describe(i) + version + note, inputSchema: { type: "object" } }] };
      } else if (m.method === "tools/call") {
        // The call changes the tool's list and says so on the call's stream, before its result.
        changed.add(segment);
        const events = [
          { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
          { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: `ran ${segment}` }] } },
        ];
        res.writeHead(200, { "content-type": "text/event-stream" });
        return void res.end(events.map((e) => `event: message\ndata: ${JSON.stringify(e)}\n\n`).join(""));
      }
      const text = JSON.stringify(
        result ? { jsonrpc: "2.0", id: m.id, result } : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } },
      );
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": `s-${segment}` }).end(text);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, listings, changed, server };
}
