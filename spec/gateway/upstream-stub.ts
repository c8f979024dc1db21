// An in-process tool server for gateway specs that need to watch the upstream side closely
// (what it was sent, whether it sees back-pressure, how many calls it holds): a `url`
// revision pointing here. `handle` gets each JSON-RPC request with its parsed message.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

interface After {
  after(fn: () => unknown): void;
}

export interface RpcMessage {
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
}

export type StubHandler = (msg: RpcMessage, req: IncomingMessage, res: ServerResponse) => void;

/** Answers a JSON-RPC request with `result`. */
export function reply(res: ServerResponse, msg: RpcMessage, result: unknown): void {
  const body = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result });
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export async function upstreamStub(t: After, handle: StubHandler): Promise<{ url: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      let msg: RpcMessage = {};
      try {
        msg = JSON.parse(body || "{}") as RpcMessage;
      } catch {
        // REST and GET routes carry no JSON-RPC message.
      }
      handle(msg, req, res);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  t.after(() => {
    server.closeAllConnections();
    return new Promise<void>((done) => server.close(() => done()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}
