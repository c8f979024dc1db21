// A second floor for any HTTP hop: node:http accepts the request as in ./proxy.ts, but the
// relay to the tool server skips node's HTTP client. It writes the request as one buffer on
// a pooled keep-alive socket and reads a Content-Length answer by hand. Bench-only: no
// chunked answers, no error handling beyond dropping the socket; it shows how little of
// the hop's cost is node's HTTP client.
import { createServer, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import { listenOnLoopback, type BenchServer } from "./types.ts";

const NOT_RELAYED = new Set(["connection", "keep-alive", "host", "content-length", "transfer-encoding"]);

interface Answer {
  status: number;
  headers: string[];
  body: Buffer;
}

/** Reads one Content-Length answer from `socket`, then hands the socket back. */
function readAnswer(socket: Socket, done: (answer: Answer) => void): void {
  let buffered: Buffer | null = null;
  let head: { status: number; headers: string[]; length: number; start: number } | null = null;
  const onData = (chunk: Buffer): void => {
    buffered = buffered ? Buffer.concat([buffered, chunk]) : chunk;
    if (!head) {
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) return;
      const lines = buffered.toString("latin1", 0, end).split("\r\n");
      head = { status: Number(lines[0]!.slice(9, 12)), headers: [], length: 0, start: end + 4 };
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === "content-length") head.length = Number(value);
        else if (!NOT_RELAYED.has(name)) head.headers.push(name, value);
      }
    }
    if (buffered.length - head.start < head.length) return;
    socket.off("data", onData);
    done({ status: head.status, headers: head.headers, body: buffered.subarray(head.start, head.start + head.length) });
  };
  socket.on("data", onData);
}

/** `args`: the tool server's base URL. */
export function startRawRelay(args: readonly string[]): Promise<BenchServer> {
  const upstream = new URL(args[0] ?? "");
  const idle: Socket[] = [];
  const relay = (request: Buffer, res: ServerResponse): void => {
    const socket = idle.pop() ?? connect(Number(upstream.port), upstream.hostname);
    readAnswer(socket, ({ status, headers, body }) => {
      idle.push(socket);
      headers.push("content-length", String(body.length));
      res.writeHead(status, headers);
      res.end(body);
    });
    socket.write(request);
  };
  const server = createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let head = `${req.method} ${req.url} HTTP/1.1\r\nhost: ${upstream.host}\r\n`;
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if (!NOT_RELAYED.has(req.rawHeaders[i]!.toLowerCase())) head += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
      }
      relay(Buffer.concat([Buffer.from(`${head}content-length: ${body.length}\r\n\r\n`, "latin1"), body]), res);
    });
  });
  return listenOnLoopback(server, () => {
    for (const socket of idle) socket.destroy();
  });
}
