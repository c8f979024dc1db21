// Which revision serves a message: the one decision every transport (HTTP, stdio, handle(),
// the gateway) takes here and nowhere else. 2026-07-28 is stateless (a `_meta` envelope on
// each request, no session); 2025-11-25 and earlier run in a session opened by `initialize`.
import { ErrorCode, type JsonRpcErrorBody } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import { isStatelessVersion, requestMeta, META } from "./stateless/envelope.ts";
import { isSupportedVersion, SUPPORTED_VERSIONS } from "./versions.ts";

export type Revision =
  | { kind: "session" }
  | { kind: "stateless" }
  /** A version header naming no revision we serve, on a message without the 2026 envelope. */
  | { kind: "refused"; refusal: "unsupported-version"; error: JsonRpcErrorBody };

const SESSION: Revision = { kind: "session" };
const STATELESS: Revision = { kind: "stateless" };

/**
 * `header` is the MCP-Protocol-Version header (undefined on a transport without headers);
 * `body` the parsed message, or undefined when the caller routes before parsing it (the
 * gateway). A header naming a stateless revision, or a single message carrying the
 * protocol-version `_meta` key, is stateless; the 2026 checks then refuse a header/envelope
 * mismatch. A batch is never stateless: 2026-07-28 has no batches.
 */
export function classifyProtocolRevision(header: string | undefined, body?: unknown): Revision {
  if (header !== undefined && !Array.isArray(body) && isStatelessVersion(header.trim())) return STATELESS;
  if (isRecord(body) && requestMeta(body.params)?.[META.protocolVersion] !== undefined) return STATELESS;
  if (header !== undefined && !isSupportedVersion(header)) return UNSUPPORTED;
  return SESSION;
}

const UNSUPPORTED: Revision = {
  kind: "refused",
  refusal: "unsupported-version",
  error: { code: ErrorCode.InvalidRequest, message: `Bad Request: unsupported MCP-Protocol-Version (supported: ${SUPPORTED_VERSIONS.join(", ")})` },
};

/**
 * The revision of a request that is not a posted message (a GET stream, a DELETE, REST): only
 * a session revision has those routes, so a stateless version is refused there as unsupported.
 */
export function classifyRouteProtocolRevision(header: string): Revision {
  const revision = classifyProtocolRevision(header);
  return revision.kind === "stateless" ? UNSUPPORTED : revision;
}
