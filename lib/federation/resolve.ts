// Which tool a request for an exposed name or URI goes to, and the params it carries
// there (the original name or URI). Shared by hub_bridge and the gateway's hub connector,
// so a name resolves the same way in both. Unknown names get the same answer whether the
// name never existed or belongs to a tool the caller may not use.
import type { Params } from "../util/jsonrpc.ts";
import { ErrorCode } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { Origin } from "./naming.ts";

export interface Namespace {
  /** The origin of an exposed tool or prompt name. */
  resolve(kind: "tools" | "prompts", name: string): Origin | undefined;
  /** The label and original URI of an exposed URI. */
  resolveUri(uri: string): { label: string; uri: string } | undefined;
  /** The exposed name of a tool's own tool name, when it is listed: the way back of resolve(). */
  exposedName(label: string, name: string): string | undefined;
}

export type Resolution = { label: string; params: Params } | { error: { code: number; message: string } };

/** Methods that name their target: the resolution, or null for any other method. */
export function resolveByName(method: string, params: Params, ns: Namespace): Resolution | null {
  switch (method) {
    case "tools/call":
    case "prompts/get": {
      const which = method === "tools/call" ? "tools" : "prompts";
      const name = params.name;
      if (typeof name !== "string") return { error: { code: ErrorCode.InvalidParams, message: "Invalid params: name must be a string" } };
      const origin = ns.resolve(which, name);
      if (!origin) return { error: { code: ErrorCode.InvalidParams, message: `${which === "tools" ? "Unknown tool" : "Unknown prompt"}: ${name}` } };
      return { label: origin.label, params: { ...params, name: origin.name } };
    }
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe": {
      const found = typeof params.uri === "string" ? ns.resolveUri(params.uri) : undefined;
      if (!found) return { error: { code: ErrorCode.ResourceNotFound, message: "Resource not found" } };
      return { label: found.label, params: { ...params, uri: found.uri } };
    }
    case "completion/complete": {
      const ref = isRecord(params.ref) ? params.ref : {};
      const prompt = ref.type === "ref/prompt" && typeof ref.name === "string" ? ns.resolve("prompts", ref.name) : undefined;
      const resource = ref.type === "ref/resource" && typeof ref.uri === "string" ? ns.resolveUri(ref.uri) : undefined;
      if (prompt) return { label: prompt.label, params: { ...params, ref: { ...ref, name: prompt.name } } };
      if (resource) return { label: resource.label, params: { ...params, ref: { ...ref, uri: resource.uri } } };
      return { error: { code: ErrorCode.InvalidParams, message: "Invalid params: unknown completion reference" } };
    }
    default:
      return null;
  }
}
