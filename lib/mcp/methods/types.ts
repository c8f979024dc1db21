import type { Call } from "../exchange.ts";
import type { Params } from "../../util/jsonrpc.ts";

export type Result = Record<string, unknown>;
export type Method = (params: Params, call: Call) => Result | Promise<Result>;
export type MethodTable = Record<string, Method>;

/**
 * What a method answers when nothing is owed (a relayed call its tool cancelled): the
 * dispatcher leaves it out, as it leaves out the answer of a call cancelled here.
 */
export const NO_ANSWER: Result = Object.freeze({});
