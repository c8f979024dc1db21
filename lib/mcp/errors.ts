import { ErrorCode, JsonRpcError } from "../util/jsonrpc.ts";
export { JsonRpcError } from "../util/jsonrpc.ts";

export const invalidParams = (message: string): JsonRpcError => new JsonRpcError(ErrorCode.InvalidParams, message);

/** Echo a client-supplied name only when it is short and plain, so errors stay bounded. */
export function quoteName(name: unknown): string {
  return typeof name === "string" && /^[A-Za-z0-9_./:-]{1,128}$/.test(name) ? name : "(unprintable)";
}
