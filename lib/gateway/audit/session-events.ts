// Tool-session events (../tool-sessions/tool-sessions.ts tells them to the log) as the audit trail's
// session lines and /metrics' starts, failures and start latency by backend.
import type { GatewayMetrics } from "../operations/metrics.ts";
import type { AuditTrail } from "./trail.ts";

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function toolSessionEvents(metrics: GatewayMetrics, audit: AuditTrail): (name: string, fields: Record<string, unknown>) => void {
  return (name, fields) => {
    const backend = str(fields.backend) ?? "unknown";
    const who = { person: str(fields.user), tool: str(fields.tool), revision: str(fields.revision), backend };
    if (name === "tool session started") {
      metrics.sessionStarted(backend, num(fields.ms) ?? 0);
      audit.record({ event: "session.start", ...who, outcome: "ok", ms: num(fields.ms) });
    } else if (name === "tool session failed to start") {
      metrics.sessionFailed(backend);
      audit.record({ event: "session.start-failed", ...who, outcome: "error", reason: str(fields.code) });
    } else if (name === "tool session stopped") {
      audit.record({
        event: "session.stop",
        ...who,
        outcome: fields.reason === "crashed" ? "error" : "ok",
        ms: num(fields.ms),
        reason: str(fields.reason),
        by: str(fields.by),
      });
    }
  };
}
