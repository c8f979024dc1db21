// A feature's methods in the one method table from the start, answering only once the
// feature is in use (the first skill, the first async tool): the table is built once and
// never edited, and a server that never uses the feature neither has nor advertises it.
import { JsonRpcError } from "../errors.ts";
import { ErrorCode } from "../../util/jsonrpc.ts";
import type { Method, MethodTable } from "./types.ts";

/**
 * `table`'s methods, each answering while `inUse()` holds; until then a method `before`
 * names answers as before the feature (a wrapped `tools/call`), any other as unknown.
 */
export function whenInUse(table: MethodTable, inUse: () => boolean, before: MethodTable = {}): MethodTable {
  const out: MethodTable = {};
  for (const [name, method] of Object.entries(table)) {
    const fallback: Method | undefined = Object.hasOwn(before, name) ? before[name] : undefined;
    out[name] = (params, call) => {
      if (inUse()) return method(params, call);
      if (fallback) return fallback(params, call);
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${name}`);
    };
  }
  return out;
}
