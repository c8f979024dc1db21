import type { Call } from "../exchange.ts";
import type { Params } from "../../util/jsonrpc.ts";

export type Result = Record<string, unknown>;
export type Method = (params: Params, call: Call) => Result | Promise<Result>;
export type MethodTable = Record<string, Method>;
