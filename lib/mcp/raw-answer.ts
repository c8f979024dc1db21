// A method's whole JSON-RPC response, already as bytes: a relay passing on an answer it needs
// nothing to change in hands the bytes through, and the transport writes them as they are
// (parsing and writing them again costs more than the rest of the hop). Only a transport that
// asks (rawBytesOf) sees the bytes; one that does not would serialize an empty result.
import { isRecord } from "../util/guards.ts";
import type { JsonRpcResponse } from "../util/jsonrpc.ts";
import type { Result } from "./methods/types.ts";

const RAW = Symbol("hubmcp.raw-answer");

/** The method's result standing for `bytes`, a complete JSON-RPC response to the same request id. */
export function rawAnswer(bytes: Buffer): Result {
  return { [RAW]: bytes };
}

/** The bytes a response stands for, when its method answered with rawAnswer(). */
export function rawBytesOf(response: JsonRpcResponse): Buffer | undefined {
  const result = "result" in response ? response.result : undefined;
  return isRecord(result) ? ((result as Record<symbol, unknown>)[RAW] as Buffer | undefined) : undefined;
}
