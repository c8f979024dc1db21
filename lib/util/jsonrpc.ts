// JSON-RPC 2.0 (https://www.jsonrpc.org/specification): message shapes and the one function
// that sorts an incoming value into a message kind. Pure: every transport shares it. The error
// codes and the error class are the error model's (./errors.ts), re-exported here.
import { ErrorCode, type JsonRpcErrorBody } from "./errors.ts";
import { isRecord } from "./guards.ts";

export { ErrorCode, isJsonRpcError, JsonRpcError, type JsonRpcErrorBody } from "./errors.ts";

export type RequestId = string | number;
export type Params = Record<string, unknown>;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Params;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Params;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcFailure {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: JsonRpcErrorBody;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcFailure;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** Where an incoming value belongs. `response` answers a server-to-client request. */
export type Incoming =
  | { kind: "request"; message: JsonRpcRequest }
  | { kind: "notification"; message: JsonRpcNotification }
  | { kind: "response"; message: JsonRpcResponse }
  | { kind: "invalid"; id: RequestId | null; error: JsonRpcErrorBody };

/** A JSON-RPC request id: a string or a finite number. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

const invalid = (id: RequestId | null, message: string): Incoming => ({
  kind: "invalid",
  id,
  error: { code: ErrorCode.InvalidRequest, message },
});

export function classify(value: unknown): Incoming {
  if (!isRecord(value)) return invalid(null, "Invalid Request: expected a JSON-RPC object");
  const id = isRequestId(value.id) ? value.id : null;
  if (value.jsonrpc !== "2.0") return invalid(id, 'Invalid Request: jsonrpc must be "2.0"');
  if (value.method === undefined) {
    if (id !== null && ("result" in value || "error" in value)) {
      return { kind: "response", message: value as unknown as JsonRpcResponse };
    }
    return invalid(id, "Invalid Request: missing method");
  }
  if (typeof value.method !== "string") return invalid(id, "Invalid Request: method must be a string");
  if ("id" in value) {
    if (id === null) return invalid(null, "Invalid Request: id must be a string or a number");
    if (value.params !== undefined && !isRecord(value.params)) {
      return { kind: "invalid", id, error: { code: ErrorCode.InvalidParams, message: "Invalid params: params must be an object" } };
    }
    return { kind: "request", message: value as unknown as JsonRpcRequest };
  }
  if (value.params !== undefined && !isRecord(value.params)) {
    // A notification has nobody to tell; dropping it is all JSON-RPC allows.
    return { kind: "notification", message: { jsonrpc: "2.0", method: value.method } };
  }
  return { kind: "notification", message: value as unknown as JsonRpcNotification };
}

export function success(id: RequestId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

export function failure(id: RequestId | null, error: JsonRpcErrorBody): JsonRpcFailure {
  return { jsonrpc: "2.0", id, error };
}
