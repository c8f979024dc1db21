// Where a caller's request goes in hub_bridge's relay (./relay.ts). With one server everything
// passes through unchanged. With several, lists are merged (read live, page by page, into
// the one namespace, ./namespace.ts) with the built-in search tool first, a name not seen yet
// listed again, and each other move made as the hub connector makes it (./route-moves.ts:
// resolution, tasks by `<label>/<id>`, `logging/setLevel` and `tasks/list` for every started
// server; ./moves.ts exposeResult). `initialize` (./merge.ts) and `ping` are answered here.
import type { JsonRpcRequest, Params } from "../util/jsonrpc.ts";
import { ErrorCode, isJsonRpcError, JsonRpcError } from "../util/jsonrpc.ts";
import type { Call } from "./calls.ts";
import { listKindOf, type ListKind } from "./expose.ts";
import { initializeResult } from "./merge.ts";
import { exposeResult, listEvery } from "./moves.ts";
import type { Implementation } from "../mcp/stateless/results.ts";
import type { JsonRpcResponse } from "../util/jsonrpc.ts";
import type { MergedNamespace } from "./namespace.ts";
import type { RelayServer } from "./relay-server.ts";
import { routeOf, type Routing, searchOf, setLevelEverywhere, tasksOfAll } from "./route-moves.ts";
import { SEARCH_DEFINITION } from "./search.ts";

type Result = Record<string, unknown>;

/** What routing needs of the relay (implemented by ./relay.ts). */
export interface RouteTarget<S extends RelayServer> {
  readonly servers: readonly S[];
  readonly single: boolean;
  readonly namespace: MergedNamespace;
  readonly serverInfo: Implementation;
  readonly down: Set<S>;
  server(label: string): S | undefined;
  forward(call: Call<S> | null, server: S, method: string, params: Params | undefined): Promise<JsonRpcResponse>;
  ask(call: Call<S> | null, server: S, method: string, params: Params | undefined): Promise<Result>;
  explain(server: S, err: unknown): string;
  notifyCaller(method: string, params?: Params): void;
}

export async function routeRequest<S extends RelayServer>(relay: RouteTarget<S>, call: Call<S>, request: JsonRpcRequest): Promise<Result> {
  const params: Params = request.params ?? {};
  if (request.method === "initialize") return initialize(relay, params);
  if (request.method === "ping") return {};
  if (relay.single) {
    const server = relay.servers[0]!;
    if (request.method === "tools/call") return callTool(relay, call, server, params);
    return relay.ask(call, server, request.method, request.params);
  }
  return routeAmongServers(relay, call, request.method, params);
}

async function initialize<S extends RelayServer>(relay: RouteTarget<S>, params: Params): Promise<Result> {
  const settled = await Promise.allSettled(relay.servers.map((s) => s.start(params)));
  const ready: Array<{ label: string; result: Result }> = [];
  const problems = new Set<string>();
  settled.forEach((s, i) => {
    const server = relay.servers[i]!;
    if (s.status === "fulfilled") ready.push({ label: server.label, result: s.value });
    else problems.add(relay.explain(server, s.reason));
  });
  if (ready.length === 0) throw new JsonRpcError(ErrorCode.InternalError, [...problems].join("; "));
  if (relay.single) return ready[0]!.result;
  for (const server of relay.servers) if (!server.initResult) relay.down.add(server);
  const description = {
    serverInfo: relay.serverInfo,
    ...{ hasTools: true, hasPrompts: true, hasResources: true, hasCompletions: false, listChanged: true, resourceSubscribe: false, logging: true },
  };
  return initializeResult(description, ready[0]!.result.protocolVersion, ready);
}

/** A tool call; a server that cannot be reached answers with an isError result naming it. */
async function callTool<S extends RelayServer>(relay: RouteTarget<S>, call: Call<S>, server: S, params: Params): Promise<Result> {
  try {
    return await relay.ask(call, server, "tools/call", params);
  } catch (err) {
    if (call.abort.signal.aborted || isJsonRpcError(err)) throw err;
    return { content: [{ type: "text", text: relay.explain(server, err) }], isError: true };
  }
}

async function routeAmongServers<S extends RelayServer>(relay: RouteTarget<S>, call: Call<S>, method: string, params: Params): Promise<Result> {
  const kind = listKindOf(method);
  if (kind) return listAll(relay, kind);
  const ns = relay.namespace;
  const searched = searchOf(method, params, async () => {
    // Searched before any list: the servers' tools are listed first.
    if (ns.lists.tools.length === 0) await list(relay, "tools");
    return ns.lists.tools;
  });
  if (searched) return searched;
  let resolved = routeOf(method, params, ns);
  if (resolved && "error" in resolved && (method === "tools/call" || method === "prompts/get") && typeof params.name === "string") {
    // A name not seen yet: list again, and say why a server under its prefix is missing.
    const which = method === "tools/call" ? "tools" : "prompts";
    const { failed } = await list(relay, which);
    resolved = routeOf(method, params, ns);
    const name = params.name;
    const down = "error" in resolved! ? failed.find((f) => name.startsWith(`${f.server.label}_`)) : undefined;
    if (down && which === "tools") return { content: [{ type: "text", text: relay.explain(down.server, down.error) }], isError: true };
    if (down) throw new JsonRpcError(ErrorCode.InternalError, relay.explain(down.server, down.error));
  }
  if (resolved) {
    if ("error" in resolved) throw new JsonRpcError(resolved.error.code, resolved.error.message);
    const server = relay.server(resolved.label)!;
    const result = method === "tools/call" ? await callTool(relay, call, server, resolved.params) : await relay.ask(call, server, method, resolved.params);
    return exposeResult(server.target, method, result, (label, name) => ns.exposedName(label, name));
  }
  if (method === "logging/setLevel") return setLevelEverywhere(startedOf(relay), params);
  if (method === "tasks/list") return tasksOfAll(startedOf(relay), params);
  throw new JsonRpcError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
}

/** The relay as the shared moves see it (./route-moves.ts): its started servers, asked on no caller's call. */
function startedOf<S extends RelayServer>(relay: RouteTarget<S>): Routing<S> {
  return {
    namespace: relay.namespace,
    started: () => relay.servers.filter((s) => s.initResult),
    send: (server, method, params) => relay.ask(null, server, method, params),
  };
}

interface Listed<S> {
  items: Result[];
  /** Servers that could not be listed, with the error each threw. */
  failed: Array<{ server: S; error: unknown }>;
}

/** Every server's list read anew into the namespace; a server that fails is left out of it this time. */
async function list<S extends RelayServer>(relay: RouteTarget<S>, kind: ListKind): Promise<Listed<S>> {
  const settled = await Promise.allSettled(relay.servers.map((s) => listEvery(kind, (method, params) => relay.ask(null, s, method, params))));
  const failed: Listed<S>["failed"] = [];
  const listed: Array<{ target: S["target"]; items: Result[] }> = [];
  settled.forEach((s, i) => {
    const server = relay.servers[i]!;
    // Names are assigned in the servers' order whatever order the answers came in.
    if (s.status === "fulfilled") listed.push({ target: server.target, items: s.value });
    else failed.push({ server, error: s.reason });
  });
  return { items: relay.namespace.update(kind, listed, new Set(failed.map((f) => f.server.label))), failed };
}

async function listAll<S extends RelayServer>(relay: RouteTarget<S>, kind: ListKind): Promise<Result> {
  const { items, failed } = await list(relay, kind);
  const problems = [...new Set(failed.map((f) => relay.explain(f.server, f.error)))];
  if (failed.length === relay.servers.length) throw new JsonRpcError(ErrorCode.InternalError, problems.join("; "));
  // A server that was down at initialize and answers now: its names are new to the caller.
  const recovered = [...relay.down].filter((s) => s.initResult);
  if (recovered.length > 0) {
    for (const s of recovered) relay.down.delete(s);
    for (const changed of ["tools", "prompts", "resources"]) relay.notifyCaller(`notifications/${changed}/list_changed`);
  }
  return { [kind]: kind === "tools" ? [SEARCH_DEFINITION, ...items] : items };
}
