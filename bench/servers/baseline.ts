// The practical limit: bare node:http answering the same JSON-RPC `tools/call add` with a
// response of the same shape and headers as hubmcp's, and broadcasting each POST answer to
// its `GET /sse` streams the way hubmcp's legacy transport does.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { listenOnLoopback, type BenchServer } from "./types.ts";

const HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Mcp-Session-Id, WWW-Authenticate",
  "content-type": "application/json",
};

type Call = { id?: number | string; params?: { arguments?: { a?: number; b?: number } } };

function answer(body: string): string {
  const call = JSON.parse(body) as Call;
  const sum = (call.params?.arguments?.a ?? 0) + (call.params?.arguments?.b ?? 0);
  return JSON.stringify({ jsonrpc: "2.0", id: call.id ?? null, result: { content: [{ type: "text", text: String(sum) }], isError: false } });
}

export function startBaseline(): Promise<BenchServer> {
  const streams = new Set<ServerResponse>();
  const openStream = (res: ServerResponse): void => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform" });
    res.write("event: open\ndata: {}\n\nevent: endpoint\ndata: /?session_id=0\n\n");
    streams.add(res);
    res.once("close", () => streams.delete(res));
  };
  const post = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.once("end", () => {
      const text = answer(Buffer.concat(chunks).toString("utf8"));
      res.writeHead(200, { ...HEADERS, "content-length": Buffer.byteLength(text) });
      res.end(text);
      if (streams.size > 0) {
        const frame = `event: message\ndata: ${text}\n\n`;
        for (const s of streams) s.write(frame);
      }
    });
  };
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    if (req.method === "GET" && req.url === "/sse") return openStream(res);
    if (req.method === "POST") return post(req, res);
    res.writeHead(404).end();
  });
  return listenOnLoopback(server, () => {
    for (const s of streams) s.end();
  });
}
