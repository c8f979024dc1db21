// A local OTLP/HTTP sink for the tracing row: accepts /v1/traces exports and counts them,
// in the bench's own process (its CPU is no server's).
import { createServer } from "node:http";

export interface SpanSink {
  url: string;
  spans(): number;
  posts(): number;
  /** Bytes of export bodies received. */
  bytes(): number;
  close(): Promise<void>;
}

export async function startSpanSink(): Promise<SpanSink> {
  let spans = 0;
  let posts = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      posts++;
      bytes += Buffer.byteLength(body);
      spans += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => spans,
    posts: () => posts,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
