// Counters for GET /metrics in the Prometheus text format (version 0.0.4): requests by tool
// and status, upstream latency, tool-session starts, failures and start latency by backend,
// live tool sessions per tool, call duration per tool, the store's latency and errors,
// rate-limit refusals, and trace spans and audit lines dropped. The names are in docs/operations.md.
import { Counter, Histogram, label } from "./metric-kinds.ts";

const BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Tool sessions take from a fraction of a second (a process) to minutes (a batch queue). */
const START_BUCKETS_S = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const STORE_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

export interface MetricsSources {
  /** How many spans the gateway's exporter has dropped so far. */
  droppedSpans?: () => number;
  /** How many audit lines the trail has dropped so far. */
  droppedAuditLines?: () => number;
}

export class GatewayMetrics {
  /** Counts by tool, then by status. */
  readonly #requests = new Map<string, Map<number, number>>();
  readonly #upstream = new Histogram("hubmcp_gateway_upstream_seconds", "Time until the tool server's response headers.", BUCKETS_S);
  readonly #starts = new Counter("hubmcp_gateway_tool_session_starts_total", "Tool sessions started, by backend.", "backend");
  readonly #startFailures = new Counter("hubmcp_gateway_tool_session_start_failures_total", "Tool sessions that failed to start, by backend.", "backend");
  readonly #startLatency = new Histogram(
    "hubmcp_gateway_tool_session_start_seconds",
    "Time from a tool session's first request until it was ready, by backend.",
    START_BUCKETS_S,
    "backend",
  );
  readonly #calls = new Histogram("hubmcp_gateway_call_seconds", "Duration of tool calls, resource reads and prompt gets, by tool.", BUCKETS_S, "tool");
  readonly #store = new Histogram("hubmcp_gateway_store_seconds", "Latency of the store's operations, by operation.", STORE_BUCKETS_S, "op");
  readonly #storeErrors = new Counter("hubmcp_gateway_store_errors_total", "Store operations that failed, by operation.", "op");
  readonly #rateLimited = new Counter("hubmcp_gateway_rate_limited_total", "Requests refused by the per-person rate limit.");
  readonly #sources: MetricsSources;

  constructor(sources: MetricsSources = {}) {
    this.#sources = sources;
  }

  request(tool: string, status: number): void {
    let byStatus = this.#requests.get(tool);
    if (!byStatus) this.#requests.set(tool, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  upstreamLatency(ms: number): void {
    this.#upstream.observe(ms / 1000);
  }

  sessionStarted(backend: string, ms: number): void {
    this.#starts.inc(backend);
    this.#startLatency.observe(ms / 1000, backend);
  }

  sessionFailed(backend: string): void {
    this.#startFailures.inc(backend);
  }

  call(tool: string, ms: number): void {
    this.#calls.observe(ms / 1000, tool);
  }

  store(op: string, ms: number, failed: boolean): void {
    this.#store.observe(ms / 1000, op);
    if (failed) this.#storeErrors.inc(op);
  }

  rateLimited(): void {
    this.#rateLimited.inc();
  }

  /** `liveSessions`: tool sessions this replica runs; `perTool`: the same, by tool. */
  render(liveSessions: number, perTool: ReadonlyMap<string, number> = new Map()): string {
    const lines = ["# HELP hubmcp_gateway_requests_total Requests answered, by tool and HTTP status.", "# TYPE hubmcp_gateway_requests_total counter"];
    for (const [tool, byStatus] of this.#requests) {
      for (const [status, n] of byStatus) lines.push(`hubmcp_gateway_requests_total{tool="${label(tool)}",status="${status}"} ${n}`);
    }
    this.#upstream.render(lines);
    lines.push("# HELP hubmcp_gateway_tool_sessions Tool sessions whose process this replica runs.", "# TYPE hubmcp_gateway_tool_sessions gauge");
    lines.push(`hubmcp_gateway_tool_sessions ${liveSessions}`);
    lines.push(
      "# HELP hubmcp_gateway_tool_sessions_live Tool sessions whose process this replica runs, by tool.",
      "# TYPE hubmcp_gateway_tool_sessions_live gauge",
    );
    for (const [tool, n] of perTool) lines.push(`hubmcp_gateway_tool_sessions_live{tool="${label(tool)}"} ${n}`);
    for (const metric of [this.#starts, this.#startFailures, this.#startLatency, this.#calls, this.#store, this.#storeErrors, this.#rateLimited])
      metric.render(lines);
    lines.push(
      "# HELP hubmcp_spans_dropped_total Trace spans not exported: the queue was full or the collector failed.",
      "# TYPE hubmcp_spans_dropped_total counter",
      `hubmcp_spans_dropped_total ${this.#sources.droppedSpans?.() ?? 0}`,
      "# HELP hubmcp_gateway_audit_lines_dropped_total Audit lines not written: the queue was full or the sink failed.",
      "# TYPE hubmcp_gateway_audit_lines_dropped_total counter",
      `hubmcp_gateway_audit_lines_dropped_total ${this.#sources.droppedAuditLines?.() ?? 0}`,
    );
    return `${lines.join("\n")}\n`;
  }
}
