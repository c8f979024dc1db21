// What the bridge's routing and host side share: a host call in flight, and the two
// errors a route throws (a tool's own JSON-RPC error, or the bridge's).
import type { RequestId } from "../util/jsonrpc.ts";
import { ErrorCode } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { Upstream } from "./upstream.ts";

export interface HostCall {
  readonly abort: AbortController;
  upstream: Upstream | null;
  upstreamId: RequestId | null;
}

/** A JSON-RPC error a tool answered, passed to the host unchanged. */
export class ToolRpcError extends Error {
  readonly code = "HUBMCP_BRIDGE_TOOL_RPC";
  readonly body: { code: number; message: string; data?: unknown };
  constructor(body: unknown) {
    const b = isRecord(body) ? body : {};
    super(typeof b.message === "string" ? b.message : "Error");
    this.body = { code: typeof b.code === "number" ? b.code : ErrorCode.InternalError, message: this.message, ...("data" in b ? { data: b.data } : {}) };
  }
}

/** An error the bridge itself answers with (unknown tool, bad params, method not found). */
export class BridgeRpcError extends Error {
  readonly code = "HUBMCP_BRIDGE_RPC";
  readonly rpcCode: number;
  constructor(rpcCode: number, message: string) {
    super(message);
    this.rpcCode = rpcCode;
  }
}
