// What the bridge's routing and host side share: a host call in flight. The errors a route
// throws (a tool's own JSON-RPC error passed on, or the bridge's) are the error model's one
// JsonRpcError (lib/util/errors.ts).
import type { RequestId } from "../util/jsonrpc.ts";
import type { Upstream } from "./upstream.ts";

export interface HostCall {
  readonly abort: AbortController;
  upstream: Upstream | null;
  upstreamId: RequestId | null;
}
