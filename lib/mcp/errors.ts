import { ErrorCode, type JsonRpcErrorBody } from "./jsonrpc.ts";

/**
 * A failure a method handler raises on purpose. Its message is sent to the client, so it
 * is always a short fixed text: never the caller's arguments, file contents or secrets.
 */
export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "RpcError";
    this.code = code;
    this.data = data;
  }
  toBody(): JsonRpcErrorBody {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export const invalidParams = (message: string): RpcError => new RpcError(ErrorCode.InvalidParams, message);

/** Echo a client-supplied name only when it is short and plain, so errors stay bounded. */
export function quoteName(name: unknown): string {
  return typeof name === "string" && /^[A-Za-z0-9_./:-]{1,128}$/.test(name) ? name : "(unprintable)";
}
