// Counters for GET /metrics in the Prometheus text format (version 0.0.4): requests by
// tool and status, upstream latency as a histogram, live tool sessions.

const BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

export class GatewayMetrics {
  readonly #requests = new Map<string, number>();
  readonly #buckets = new Array<number>(BUCKETS_S.length).fill(0);
  #latencyCount = 0;
  #latencySum = 0;

  request(tool: string, status: number): void {
    const key = `${tool}\n${status}`;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
  }

  upstreamLatency(ms: number): void {
    const s = ms / 1000;
    this.#latencyCount++;
    this.#latencySum += s;
    for (let i = 0; i < BUCKETS_S.length; i++) if (s <= BUCKETS_S[i]!) this.#buckets[i]!++;
  }

  render(liveSessions: number): string {
    const lines = ["# HELP hubmcp_gateway_requests_total Requests answered, by tool and HTTP status.", "# TYPE hubmcp_gateway_requests_total counter"];
    for (const [key, n] of this.#requests) {
      const [tool, status] = key.split("\n");
      lines.push(`hubmcp_gateway_requests_total{tool="${label(tool!)}",status="${status}"} ${n}`);
    }
    lines.push("# HELP hubmcp_gateway_upstream_seconds Time until the tool server's response headers.", "# TYPE hubmcp_gateway_upstream_seconds histogram");
    BUCKETS_S.forEach((le, i) => lines.push(`hubmcp_gateway_upstream_seconds_bucket{le="${le}"} ${this.#buckets[i]}`));
    lines.push(`hubmcp_gateway_upstream_seconds_bucket{le="+Inf"} ${this.#latencyCount}`);
    lines.push(`hubmcp_gateway_upstream_seconds_sum ${this.#latencySum}`, `hubmcp_gateway_upstream_seconds_count ${this.#latencyCount}`);
    lines.push("# HELP hubmcp_gateway_tool_sessions Tool sessions whose process this replica runs.", "# TYPE hubmcp_gateway_tool_sessions gauge");
    lines.push(`hubmcp_gateway_tool_sessions ${liveSessions}`);
    return `${lines.join("\n")}\n`;
  }
}
