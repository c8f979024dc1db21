// Small pieces of the gateway's operations wiring, kept out of ../server.ts: the
// rate-limit refusal that /metrics counts, the tool-session events fanned out to the log,
// the audit trail and /metrics, and live sessions per tool.
import type { GatewayMetrics } from "./metrics.ts";
import { GatewayError } from "../contracts/respond.ts";
import type { ToolSessions } from "../tool-sessions/tool-sessions.ts";

/** A refusal by the per-person rate limit, counted for /metrics. */
export function rateLimited(metrics: GatewayMetrics, wait: number): GatewayError {
  metrics.rateLimited();
  return new GatewayError("rate_limited", "Too many requests; slow down", { "retry-after": String(wait) });
}

export function teeEvents(...sinks: Array<(name: string, fields: Record<string, unknown>) => void>): (name: string, fields: Record<string, unknown>) => void {
  return (name, fields) => {
    for (const sink of sinks) sink(name, fields);
  };
}

export function livePerTool(sessions: ToolSessions): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { rec } of sessions.owned()) counts.set(rec.tool, (counts.get(rec.tool) ?? 0) + 1);
  return counts;
}
