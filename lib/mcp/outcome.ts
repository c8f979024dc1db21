// What the protocol core answers a message with, before any transport dresses it: a reply,
// nothing owed (accepted), or a refusal that names why. The core picks no HTTP status:
// lib/http/status.ts maps outcomes to statuses in one table; stdio writes the reply as is.
import type { JsonRpcResponse } from "../util/jsonrpc.ts";

export type Refusal =
  /** Nothing in the body could be served: an invalid message, an empty or oversized batch. */
  | "malformed"
  /** The MCP-Protocol-Version header names no revision this server speaks. */
  | "unsupported-version"
  /** A 2026-07-28 `_meta` envelope is missing or broken (-32602). */
  | "bad-envelope"
  /** Headers disagree with the body (-32020). */
  | "header-mismatch"
  /** The request needs a client capability it did not declare (-32021). */
  | "missing-capability"
  /** A 2026-07-28 request for a method that revision does not have (-32601). */
  | "unknown-method"
  /** The server failed; the reply says only "Internal error". */
  | "internal-error";

export type Reply = JsonRpcResponse | JsonRpcResponse[];

export type Outcome =
  | { readonly kind: "reply"; readonly reply: Reply }
  | { readonly kind: "accepted" }
  | { readonly kind: "refused"; readonly refusal: Refusal; readonly reply: Reply };

export const ACCEPTED: Outcome = { kind: "accepted" };

export const replied = (reply: Reply): Outcome => ({ kind: "reply", reply });
export const refused = (refusal: Refusal, reply: Reply): Outcome => ({ kind: "refused", refusal, reply });

/** The JSON-RPC answer owed, null when none is. */
export const replyOf = (outcome: Outcome): Reply | null => (outcome.kind === "accepted" ? null : outcome.reply);
