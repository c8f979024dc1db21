// The OAuth server's sign-ins and grant changes, which it tells its logger, as audit lines
// too: the logger is wrapped, so the authorization server needs no knowledge of the trail.
import type { Logger } from "../../util/logger.ts";
import type { AuditEntry } from "./entry.ts";
import type { AuditTrail } from "./trail.ts";

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function entryOf(message: string, fields: Record<string, unknown> = {}): AuditEntry | undefined {
  const client = str(fields.client_id);
  switch (message) {
    case "oauth sign-in":
      return { event: "sign-in", person: str(fields.user), outcome: "ok" };
    case "oauth grant approved":
      return { event: "grant.approved", person: str(fields.user), client, outcome: "ok" };
    case "oauth grant revoked by its user":
      return { event: "grant.revoked", person: str(fields.user), outcome: "ok", reason: "revoked_by_user" };
    case "oauth code replayed; grant revoked":
      return { event: "grant.revoked", client, outcome: "error", reason: "code_replayed" };
    case "oauth refresh token reused; grant revoked":
      return { event: "grant.revoked", client, outcome: "error", reason: "refresh_token_reused" };
    default:
      return undefined;
  }
}

export function auditingLogger(inner: Logger, audit: AuditTrail): Logger {
  const teed =
    (level: "info" | "warn") =>
    (message: string, fields?: Record<string, unknown>): void => {
      inner[level](message, fields);
      const entry = entryOf(message, fields);
      if (entry) audit.record(entry);
    };
  return { debug: inner.debug, info: teed("info"), warn: teed("warn"), error: inner.error };
}
