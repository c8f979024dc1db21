// What can go wrong between an MCP client and a streamable-HTTP endpoint (./mcp-client.ts),
// classified once for every client of hubmcp: hub_bridge reads it as one sentence a user
// understands (bridge/failures.ts), the gateway as the status of its own answer. Details are
// short single lines from the endpoint's error body: never a token, never arguments.

export type ClientFailure =
  /** 401: the credential is unknown, revoked or expired. */
  | { kind: "unauthorized" }
  /** 403: the account lacks a group the tool requires. */
  | { kind: "forbidden"; groups: readonly string[] }
  /** 404 naming our session: it expired or the server restarted; re-initialise. */
  | { kind: "session-gone" }
  /** 404 without a session: no such endpoint. */
  | { kind: "not-found"; detail: string }
  /** 502/503/504/429 or a network error before any answer: worth retrying. */
  | { kind: "unavailable"; detail: string }
  /** The answer started and then broke off, or was not MCP; not retried (the call may have run). */
  | { kind: "broken"; detail: string; tooLarge?: true }
  /** Any other status, or an answer that refused the request. */
  | { kind: "http"; status: number; detail: string };

export class McpClientError extends Error {
  readonly code = "HUBMCP_MCP_CLIENT";
  readonly failure: ClientFailure;
  constructor(failure: ClientFailure, cause?: unknown) {
    super(failure.kind, cause === undefined ? undefined : { cause });
    this.failure = failure;
  }
}

export function isRetryable(failure: ClientFailure): boolean {
  return failure.kind === "unavailable";
}

/** The failure an error status means; `hadSession` tells an ended session's 404 from a missing endpoint's. */
export function failureForStatus(status: number, body: string, hadSession: boolean): ClientFailure {
  const detail = detailOf(body);
  if (status === 401) return { kind: "unauthorized" };
  if (status === 403) return { kind: "forbidden", groups: groupsOf(body) };
  if (status === 404) return hadSession ? { kind: "session-gone" } : { kind: "not-found", detail: detail || "HTTP 404" };
  if (status === 429 || status === 502 || status === 503 || status === 504) {
    return { kind: "unavailable", detail: detail ? `HTTP ${status}: ${detail}` : `HTTP ${status}` };
  }
  return { kind: "http", status, detail };
}

const MAX_DETAIL = 200;

/** A short, single-line reason from an error body: `{error: "..."}`, `{error: {message}}`, `{message}` or text. */
export function detailOf(body: string): string {
  let text = body;
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value === "object" && value !== null) {
      const v = value as Record<string, unknown>;
      const err = v.error;
      const pick = typeof err === "string" ? err : typeof err === "object" && err !== null ? (err as Record<string, unknown>).message : v.message;
      text = typeof v.error_description === "string" ? v.error_description : typeof pick === "string" ? pick : "";
    }
  } catch {
    // Not JSON: use the text itself.
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line;
}

/** The groups a 403 body names: `groups`, `required_groups`, `requiredGroups`, at the top or under `error`/`data`. */
export function groupsOf(body: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return [];
  }
  const places: unknown[] = [value];
  if (typeof value === "object" && value !== null) {
    const v = value as Record<string, unknown>;
    places.push(v.error, v.data, (v.error as Record<string, unknown> | undefined)?.data);
  }
  for (const place of places) {
    if (typeof place !== "object" || place === null) continue;
    const p = place as Record<string, unknown>;
    for (const key of ["required_groups", "requiredGroups", "groups"]) {
      const list = p[key];
      if (Array.isArray(list)) return list.filter((g): g is string => typeof g === "string").slice(0, 20);
    }
  }
  return [];
}
