// A tool server written with the official MCP SDK whose one tool, `which`, answers the label
// it was started with: a spec tells two revisions of a registered tool apart by it.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface LabelledServer {
  url: string;
  close(): Promise<void>;
}

function refuse(res: ServerResponse, status: number): void {
  res.writeHead(status, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no"}}');
}

export async function startLabelledServer(label: string): Promise<LabelledServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (!transport) {
      if (id !== undefined) return refuse(res, 404);
      if (req.method !== "POST") return refuse(res, 400);
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, fresh),
      });
      fresh.onclose = () => void (fresh.sessionId && transports.delete(fresh.sessionId));
      const server = new McpServer({ name: `labelled-${label}`, version: "1.0.0" });
      server.registerTool("which", { description: "Names this server" }, async () => ({ content: [{ type: "text", text: label }] }));
      await server.connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => void handle(req, res).catch(() => res.headersSent || refuse(res, 500)));
  await new Promise<void>((done) => http.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/`,
    close: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((done) => http.close(() => done()));
    },
  };
}
