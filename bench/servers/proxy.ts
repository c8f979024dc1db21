// The floor for any HTTP hop: bare node:http relaying each request to the tool server over a
// keep-alive agent, headers and body as they are, no authentication, no sessions of its own.
import { Agent, createServer, request } from "node:http";
import { listenOnLoopback, type BenchServer } from "./types.ts";

/** `args`: the tool server's base URL. */
export function startProxy(args: readonly string[]): Promise<BenchServer> {
  const upstream = new URL(args[0] ?? "");
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const out = request({ agent, hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", () => res.destroy());
    req.pipe(out);
  });
  return listenOnLoopback(server, () => agent.destroy());
}
