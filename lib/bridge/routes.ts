// Where each host request goes. With one tool everything passes through unchanged (only
// ids are mapped). With several, lists are merged, names and URIs resolved back to their
// tool (../federation/resolve.ts), tasks routed by their `<label>/<id>` (../federation/ids.ts), and `logging/setLevel`
// sent to all. `initialize` and `ping` are answered here in both cases.
import type { JsonRpcRequest, Params } from "../util/jsonrpc.ts";
import { ErrorCode, isJsonRpcError, JsonRpcError } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { HostCall } from "./rpc-errors.ts";
import type { Catalog } from "./catalog.ts";
import { exposeToolResult, listKindOf, rewriteResultUris, type ListKind } from "./catalog.ts";
import { mergedInitializeResult } from "../federation/merge.ts";
import { resolveByName } from "../federation/resolve.ts";
import { fanOut, mergeTasks } from "../federation/relay.ts";
import { unprefixTask, withMeta, withTask } from "../federation/ids.ts";
import type { Upstream } from "./upstream.ts";
import type { JsonRpcResponse } from "../util/jsonrpc.ts";

/** What routing needs of the bridge (implemented by Bridge). */
export interface RouteTarget {
  readonly single: boolean;
  readonly upstreams: readonly Upstream[];
  readonly catalog: Catalog;
  readonly version: string;
  readonly down: Set<Upstream>;
  forward(call: HostCall | null, upstream: Upstream, method: string, params: Params | undefined): Promise<JsonRpcResponse>;
  ask(call: HostCall | null, upstream: Upstream, method: string, params: Params | undefined): Promise<Record<string, unknown>>;
  explain(upstream: Upstream, err: unknown): string;
  notifyHost(method: string, params?: Params): void;
}

type Result = Record<string, unknown>;

export async function routeRequest(bridge: RouteTarget, call: HostCall, request: JsonRpcRequest): Promise<Result> {
  const params: Params = request.params ?? {};
  if (request.method === "initialize") return initialize(bridge, params);
  if (request.method === "ping") return {};
  if (bridge.single) {
    const upstream = bridge.upstreams[0]!;
    if (request.method === "tools/call") return callTool(bridge, call, upstream, params);
    return bridge.ask(call, upstream, request.method, request.params);
  }
  return routeAmongTools(bridge, call, request.method, params);
}

async function initialize(bridge: RouteTarget, params: Params): Promise<Result> {
  const settled = await Promise.allSettled(bridge.upstreams.map((u) => u.start(params)));
  const ready: Array<{ upstream: Upstream; result: Result }> = [];
  const problems = new Set<string>();
  settled.forEach((s, i) => {
    const upstream = bridge.upstreams[i]!;
    if (s.status === "fulfilled") ready.push({ upstream, result: s.value });
    else problems.add(bridge.explain(upstream, s.reason));
  });
  if (ready.length === 0) throw new JsonRpcError(ErrorCode.InternalError, [...problems].join("; "));
  if (bridge.single) return ready[0]!.result;
  for (const upstream of bridge.upstreams) if (!upstream.initResult) bridge.down.add(upstream);
  return mergedInitializeResult(
    ready.map((r) => ({ label: r.upstream.label, result: r.result })),
    bridge.version,
  );
}

/** A tool call; a tool that cannot be reached answers with an isError result naming it. */
async function callTool(bridge: RouteTarget, call: HostCall, upstream: Upstream, params: Params): Promise<Result> {
  let result: Result;
  try {
    result = await bridge.ask(call, upstream, "tools/call", params);
  } catch (err) {
    if (call.abort.signal.aborted || isJsonRpcError(err)) throw err;
    return { content: [{ type: "text", text: bridge.explain(upstream, err) }], isError: true };
  }
  if (bridge.single) return result;
  const out = exposeToolResult(upstream.target, withMeta(upstream.label, result), (label, name) => bridge.catalog.exposedName(label, name));
  // A created task: the 2025-11-25 `task` field, or the flat result of the seed form.
  return withTask(upstream.label, isRecord(out.task) ? { ...out, task: withTask(upstream.label, out.task) } : out) as Result;
}

async function routeAmongTools(bridge: RouteTarget, call: HostCall, method: string, params: Params): Promise<Result> {
  const kind = listKindOf(method);
  if (kind) return listAll(bridge, kind);
  const { catalog } = bridge;
  let resolved = resolveByName(method, params, catalog);
  if (resolved && "error" in resolved && (method === "tools/call" || method === "prompts/get") && typeof params.name === "string") {
    // A name not seen yet: list again, and say why a tool under its prefix is missing.
    const which = method === "tools/call" ? "tools" : "prompts";
    const { failed } = await catalog.list(which);
    resolved = resolveByName(method, params, catalog);
    const name = params.name;
    const down = "error" in resolved! ? failed.find((f) => name.startsWith(`${f.upstream.label}_`)) : undefined;
    if (down && which === "tools") return { content: [{ type: "text", text: bridge.explain(down.upstream, down.error) }], isError: true };
    if (down) throw new JsonRpcError(ErrorCode.InternalError, bridge.explain(down.upstream, down.error));
  }
  if (resolved) {
    if ("error" in resolved) throw new JsonRpcError(resolved.error.code, resolved.error.message);
    const upstream = catalog.upstream(resolved.label);
    if (!upstream) throw new JsonRpcError(ErrorCode.InvalidParams, "Unknown tool");
    if (method === "tools/call") return callTool(bridge, call, upstream, resolved.params);
    const result = await bridge.ask(call, upstream, method, resolved.params);
    return method.startsWith("resources/") ? rewriteResultUris(upstream.target, result) : result;
  }
  switch (method) {
    case "logging/setLevel":
      await fanOut(
        bridge.upstreams.filter((u) => u.initResult),
        (u) => bridge.forward(null, u, method, params),
      );
      return {};
    case "tasks/get":
    case "tasks/result":
    case "tasks/cancel":
    case "tasks/update": {
      const task = unprefixTask(params.taskId);
      const upstream = task ? bridge.catalog.upstream(task.label) : undefined;
      if (!task || !upstream) throw new JsonRpcError(ErrorCode.InvalidParams, "Unknown task");
      const result = withMeta(upstream.label, await bridge.ask(call, upstream, method, { ...params, taskId: task.taskId }));
      // A task's outcome is the tool's call result: exposed as a direct call's is.
      const exposed = (r: Result): Result => exposeToolResult(upstream.target, r, (label, name) => bridge.catalog.exposedName(label, name));
      if (method === "tasks/result") return exposed(result);
      return withTask(upstream.label, isRecord(result.result) ? { ...result, result: exposed(result.result) } : result) as Result;
    }
    case "tasks/list": {
      const answers = await fanOut(
        bridge.upstreams.filter((u) => u.initResult),
        (u) => bridge.ask(null, u, method, {}),
      );
      return mergeTasks(answers, (u, task) => withTask(u.label, task));
    }
    default:
      throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
}

async function listAll(bridge: RouteTarget, kind: ListKind): Promise<Result> {
  const { items, failed } = await bridge.catalog.list(kind);
  const problems = [...new Set(failed.map((f) => bridge.explain(f.upstream, f.error)))];
  if (failed.length === bridge.upstreams.length) throw new JsonRpcError(ErrorCode.InternalError, problems.join("; "));
  // A tool that was down at initialize and answers now: its names are new to the host.
  const recovered = [...bridge.down].filter((u) => u.initResult);
  if (recovered.length > 0) {
    for (const u of recovered) bridge.down.delete(u);
    for (const list of ["tools", "prompts", "resources"]) bridge.notifyHost(`notifications/${list}/list_changed`);
  }
  return { [kind]: items };
}
