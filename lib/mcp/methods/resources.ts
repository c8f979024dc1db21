import type { ServerCore } from "../core.ts";
import { RpcError, invalidParams } from "../errors.ts";
import { ErrorCode } from "../jsonrpc.ts";
import type { RegisteredResource } from "../../registry/resources.ts";
import type { MethodTable } from "./types.ts";

/**
 * Finds a resource by URI as a client may send it: exactly; with the server's path
 * prefix in front; or with a gateway origin glued in front of a `ui://` URI, where the
 * text from the last non-http scheme marker onward is the real URI (spec C rule 8).
 */
export function findResource(core: ServerCore, uri: string): RegisteredResource | undefined {
  const exact = core.resources.get(uri);
  if (exact) return exact;
  let rest = uri.replace(/^https?:\/\/[^/]*/i, "");
  if (core.pathPrefix && rest.startsWith(core.pathPrefix)) rest = rest.slice(core.pathPrefix.length).replace(/^\/+/, "");
  const direct = core.resources.get(rest);
  if (direct) return direct;
  const markers = [...rest.matchAll(/([A-Za-z][A-Za-z0-9+.-]*):\/\//g)].filter((m) => !/^https?$/i.test(m[1]!));
  const last = markers.at(-1);
  return last ? core.resources.get(rest.slice(last.index)) : undefined;
}

export const resourceMethods = {
  "resources/list": ({}, { core }) => ({ resources: Array.from(core.resources.values(), (r) => r.entry) }),

  async "resources/read"(params, { core }) {
    const uri = params.uri;
    if (typeof uri !== "string") throw invalidParams("Invalid params: uri must be a string");
    const resource = findResource(core, uri);
    if (!resource) throw new RpcError(ErrorCode.ResourceNotFound, "Resource not found", { uri: uri.slice(0, 2048) });
    try {
      return { contents: [await resource.read()] };
    } catch (err) {
      core.logger.error("resource handler failed", { uri: resource.uri, error: err instanceof Error ? err.stack : String(err) });
      throw new RpcError(ErrorCode.InternalError, "Resource handler failed");
    }
  },
} satisfies MethodTable;
