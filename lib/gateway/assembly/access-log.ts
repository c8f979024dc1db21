// One JSON access-log line per request, and every answer's status counted for /metrics per
// tool. The path is cut short and the session proxy's credential segment masked: a log line
// never holds a credential, a query or an argument.
import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { GatewayMetrics } from "../operations/metrics.ts";

type Facts = { user?: string; tool?: string };

function logPath(url: string | undefined): string {
  const path = (url ?? "/").split("?")[0]!.slice(0, 300);
  // The session proxy path carries a credential in its third segment.
  return path.replace(/^\/weber\/([^/]+)\/[^/]+/, "/weber/$1/-");
}

/** `serve` with each request's line written once its answer closes (499: the client left first). */
export function withAccessLog(
  serve: (req: IncomingMessage, res: ServerResponse, facts: Facts) => void,
  metrics: GatewayMetrics,
  log: ((line: string) => void) | undefined,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = log ? performance.now() : 0;
    const facts: Facts = {};
    // `on`: an answer closes once, and once() would wrap the listener on every request.
    res.on("close", () => {
      const status = res.headersSent ? res.statusCode : 499;
      metrics.request(facts.tool ?? "-", status);
      if (!log) return;
      log(
        JSON.stringify({
          time: new Date().toISOString(),
          method: req.method,
          path: logPath(req.url),
          status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          user: facts.user ?? null,
          tool: facts.tool ?? null,
        }),
      );
    });
    serve(req, res, facts);
  };
}
