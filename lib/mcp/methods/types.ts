import type { CallScope } from "../core.ts";
import type { Params } from "../jsonrpc.ts";

export type Result = Record<string, unknown>;
export type Method = (params: Params, scope: CallScope) => Result | Promise<Result>;
export type MethodTable = Record<string, Method>;
