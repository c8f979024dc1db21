// What can go wrong between the bridge and the gateway, and the one sentence a user reads
// for each. Messages name the tool and HUB_API but never the token or any arguments.

export type UpstreamFailure =
  /** 401: the token is unknown, revoked or expired. */
  | { kind: "unauthorized" }
  /** 403: the account lacks a group the tool requires. */
  | { kind: "forbidden"; groups: readonly string[] }
  /** 404 naming our session: it expired or the gateway restarted; re-initialise. */
  | { kind: "session-gone" }
  /** 404 without a session: no such tool or revision on this hub. */
  | { kind: "not-found"; detail: string }
  /** 502/503/504/429 or a network error before any answer: worth retrying. */
  | { kind: "unavailable"; detail: string }
  /** The answer started and then broke off, or was not MCP; not retried (the call may have run). */
  | { kind: "broken"; detail: string }
  /** Any other status. */
  | { kind: "http"; status: number; detail: string };

export class UpstreamError extends Error {
  readonly code = "HUBMCP_BRIDGE_UPSTREAM";
  readonly failure: UpstreamFailure;
  constructor(failure: UpstreamFailure) {
    super(failure.kind);
    this.failure = failure;
  }
}

export function isRetryable(failure: UpstreamFailure): boolean {
  return failure.kind === "unavailable";
}

/** The sentence shown to the user (in an isError result, an error, and on stderr). */
export function describeFailure(failure: UpstreamFailure, tool: string, api: string, attempts = 1): string {
  switch (failure.kind) {
    case "unauthorized":
      return `HUB_TOKEN was refused by ${api}`;
    case "forbidden":
      return failure.groups.length > 0
        ? `Access to tool ${tool} was denied: it requires membership in group ${failure.groups.join(" or ")}`
        : `Access to tool ${tool} was denied by ${api}`;
    case "session-gone":
      return `Tool ${tool} lost its session on ${api} and could not start a new one`;
    case "not-found":
      return `Tool ${tool} is not available on ${api} (${failure.detail})`;
    case "unavailable":
      return `Tool ${tool} is unavailable at ${api} (${failure.detail})${attempts > 1 ? `; gave up after ${attempts} attempts` : ""}`;
    case "broken":
      return `Tool ${tool} stopped answering mid-reply (${failure.detail})`;
    case "http":
      return `Tool ${tool} failed at ${api}: HTTP ${failure.status}${failure.detail ? ` (${failure.detail})` : ""}`;
  }
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
