// A stand-in for many tool servers at once, for the 300-tool catalog only: each path
// `/tNNN/mcp` answers initialize, tools/list (one tool with a generated description) and
// ends sessions, counting the listings it served so a spec can see the catalog filled once.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const TOPICS = ["fourier transform", "protein folding", "orbit propagation", "heat diffusion", "gene expression", "crystal lattice", "river discharge", "seismic inversion", "plasma turbulence", "ocean salinity"];
const VERBS = ["computes", "estimates", "simulates", "plots", "fits"];

/** The generated description of tool `i`: ten topics times five verbs, each pair once in 50. */
export function describe(i: number): string {
  return `${VERBS[Math.floor(i / TOPICS.length) % VERBS.length]} the ${TOPICS[i % TOPICS.length]} of sample ${i}`;
}

export interface StandIn {
  url: string;
  /** tools/list requests served, per path segment (`t7`). */
  listings: Map<string, number>;
  server: Server;
}

export async function startStandIn(): Promise<StandIn> {
  const listings = new Map<string, number>();
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
      if (m.method === "initialize") result = { protocolVersion: "2025-11-25", capabilities: { tools: { listChanged: true } }, serverInfo: { name: segment, version: "1" } };
      else if (m.method === "tools/list") {
        listings.set(segment, (listings.get(segment) ?? 0) + 1);
        const version = segment.endsWith("v2") ? " (version 2)" : "";
        result = { tools: [{ name: "run", description: describe(i) + version, inputSchema: { type: "object" } }] };
      } else if (m.method === "tools/call") result = { content: [{ type: "text", text: `ran ${segment}` }] };
      const text = JSON.stringify(result ? { jsonrpc: "2.0", id: m.id, result } : { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
      res.writeHead(200, { "content-type": "application/json", "mcp-session-id": `s-${segment}` }).end(text);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, listings, server };
}
