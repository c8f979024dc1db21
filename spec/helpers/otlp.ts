// An OTLP/HTTP collector for specs: a loopback server that keeps every /v1/traces body, and a
// decoder that reads them with the official definitions (the `opentelemetry-proto` Python
// package, in the specs' shared Python venv builder), not with a parser of our own.
import { execFile } from "node:child_process";
import { createServer, type Server } from "node:http";
import { pythonWith } from "./python-venv.ts";

interface After {
  after(fn: () => unknown): void;
}

/** Python with opentelemetry-proto, from the one venv builder the Python specs share. */
async function otlpPython(): Promise<string> {
  const env = await pythonWith("otlp", ["opentelemetry-proto"]);
  if ("missing" in env) throw new Error(`cannot decode OTLP: needs ${env.missing}`);
  return env.python;
}

export interface DecodedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  error: boolean;
  attributes: Record<string, string | number | boolean>;
}

// OTLP/JSON writes ids in hex where the protobuf JSON mapping has base64 (the OTLP spec's one
// deviation); they are turned back before json_format.Parse, which checks everything else.
const DECODE = `
import base64, json, sys
from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
out = []
for line in sys.stdin:
    body = json.loads(line)
    for rs in body.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for s in ss.get("spans", []):
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in s: s[k] = base64.b64encode(bytes.fromhex(s[k])).decode()
    req = json_format.Parse(json.dumps(body), ExportTraceServiceRequest())
    for rs in req.resource_spans:
        res = {a.key: a.value.string_value for a in rs.resource.attributes}
        for ss in rs.scope_spans:
            for s in ss.spans:
                attrs = {}
                for a in s.attributes:
                    v = a.value
                    attrs[a.key] = getattr(v, v.WhichOneof("value"))
                out.append({"service": res.get("service.name", ""), "name": s.name, "kind": s.kind,
                    "traceId": s.trace_id.hex(), "spanId": s.span_id.hex(), "parentSpanId": s.parent_span_id.hex(),
                    "error": s.status.code == 2, "attributes": attrs})
print(json.dumps(out))
`;

export async function decodeSpans(bodies: readonly string[]): Promise<DecodedSpan[]> {
  const python = await otlpPython();
  const child = execFile(python, ["-c", DECODE], { timeout: 60_000, maxBuffer: 64 << 20 });
  const done = new Promise<string>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => (out += c));
    child.stderr!.on("data", (c: Buffer) => (err += c));
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`decoder failed: ${err}`))));
  });
  child.stdin!.end(bodies.map((b) => `${b.replace(/\n/g, "")}\n`).join(""));
  return JSON.parse(await done) as DecodedSpan[];
}

export interface Collector {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` for it. */
  url: string;
  bodies: string[];
  /** Request headers of each export. */
  headers: Record<string, string | string[] | undefined>[];
  /** Resolves once `ready(bodies)` holds, checked on each export that arrives. */
  until(ready: (bodies: string[]) => boolean): Promise<void>;
}

export async function startCollector(t: After): Promise<Collector> {
  const bodies: string[] = [];
  const headers: Collector["headers"] = [];
  const waiting = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.method === "POST") {
        bodies.push(body);
        headers.push(req.headers);
      }
      res.writeHead(req.url === "/v1/traces" ? 200 : 404, { "content-type": "application/json" }).end("{}");
      for (const check of waiting) check();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    headers,
    until: (ready) =>
      new Promise<void>((resolve) => {
        const check = (): void => {
          if (!ready(bodies)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
      }),
  };
}

/** A loopback port nothing listens on: a collector that is down. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
