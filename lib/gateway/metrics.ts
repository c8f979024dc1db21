// Counters for GET /metrics in the Prometheus text format (version 0.0.4): requests by
// tool and status, upstream latency as a histogram, live tool sessions, trace spans dropped.

const BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export class GatewayMetrics {
  /** Counts by tool, then by status. */
  readonly #requests = new Map<string, Map<number, number>>();
  /** Latencies per bucket, each counted once (in the first bucket it fits); summed when rendered. */
  readonly #buckets = new Array<number>(BUCKETS_S.length).fill(0);
  #latencyCount = 0;
  #latencySum = 0;
  readonly #droppedSpans: () => number;

  /** `droppedSpans`: how many spans the gateway's exporter has dropped so far. */
  constructor(droppedSpans: () => number = () => 0) {
    this.#droppedSpans = droppedSpans;
  }

  request(tool: string, status: number): void {
    let byStatus = this.#requests.get(tool);
    if (!byStatus) this.#requests.set(tool, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  upstreamLatency(ms: number): void {
    const s = ms / 1000;
    this.#latencyCount++;
    this.#latencySum += s;
    for (let i = 0; i < BUCKETS_S.length; i++) {
      if (s <= BUCKETS_S[i]!) {
        this.#buckets[i]!++;
        break;
      }
    }
  }

  render(liveSessions: number): string {
    const lines = ["# HELP hubmcp_gateway_requests_total Requests answered, by tool and HTTP status.", "# TYPE hubmcp_gateway_requests_total counter"];
    for (const [tool, byStatus] of this.#requests) {
      for (const [status, n] of byStatus) lines.push(`hubmcp_gateway_requests_total{tool="${label(tool)}",status="${status}"} ${n}`);
    }
    lines.push("# HELP hubmcp_gateway_upstream_seconds Time until the tool server's response headers.", "# TYPE hubmcp_gateway_upstream_seconds histogram");
    let below = 0;
    BUCKETS_S.forEach((le, i) => {
      below += this.#buckets[i]!;
      lines.push(`hubmcp_gateway_upstream_seconds_bucket{le="${le}"} ${below}`);
    });
    lines.push(`hubmcp_gateway_upstream_seconds_bucket{le="+Inf"} ${this.#latencyCount}`);
    lines.push(`hubmcp_gateway_upstream_seconds_sum ${this.#latencySum}`, `hubmcp_gateway_upstream_seconds_count ${this.#latencyCount}`);
    lines.push("# HELP hubmcp_gateway_tool_sessions Tool sessions whose process this replica runs.", "# TYPE hubmcp_gateway_tool_sessions gauge");
    lines.push(`hubmcp_gateway_tool_sessions ${liveSessions}`);
    lines.push(
      "# HELP hubmcp_spans_dropped_total Trace spans not exported: the queue was full or the collector failed.",
      "# TYPE hubmcp_spans_dropped_total counter",
    );
    lines.push(`hubmcp_spans_dropped_total ${this.#droppedSpans()}`);
    return `${lines.join("\n")}\n`;
  }
}
