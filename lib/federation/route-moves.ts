// The relay's per-method decisions, made once for both its configurations: hub_bridge's
// `Relay` over gateway endpoints (./routes.ts) and the hub connector over the caller's tool
// sessions (gateway/hub-connector/methods.ts). Which server a request goes to and with what
// params (an exposed name, URI or prompt, a `<label>/<id>` task), the built-in search, the
// requests for every started server (`logging/setLevel` sent to each, `tasks/list` merged),
// and which servers hear a caller's notification. How a server is reached, and how the merged
// tools are read, is the configuration's: `Routing.send`, `Hearers.notify`, `MergedTools`.
import { ErrorCode, isRequestId, type Params } from "../util/jsonrpc.ts";
import { cancellation, type InFlight } from "./calls.ts";
import { TASK_METHODS, unprefixTask, withTask } from "./ids.ts";
import { fanOut, mergeTasks } from "./moves.ts";
import { type Namespace, type Resolution, resolveByName } from "./resolve.ts";
import { SEARCH_TOOL, searchResult } from "./search.ts";

type Result = Record<string, unknown>;

/** A namespace that knows its servers' labels (./namespace.ts). */
export type LabelledNamespace = Namespace & { readonly labels: ReadonlySet<string> };

/** What the moves need of a relay: its namespace, the servers started for this caller, and how one is sent a request. */
export interface Routing<S extends { readonly label: string }> {
  readonly namespace: LabelledNamespace;
  /** The servers a request for all of them goes to: those started (for the connector, the session's links). */
  started(): readonly S[] | Promise<readonly S[]>;
  /** One request to one server: its result; its JSON-RPC error thrown. */
  send(server: S, method: string, params: Params): Promise<Result>;
}

/** The merged tools, as the caller lists them: how a relay has them is its own (read live, or a cached view). */
export type MergedTools = () => readonly Result[] | Promise<readonly Result[]>;

/**
 * The built-in search's answer when the request is a call of it, null otherwise: the
 * namespace's merged tools ranked (./search.ts), read through `tools` only when searched.
 */
export function searchOf(method: string, params: Params, tools: MergedTools): Promise<Result> | null {
  if (method !== "tools/call" || params.name !== SEARCH_TOOL) return null;
  return (async () => searchResult(await tools(), params.arguments))();
}

/**
 * The server a request naming one goes to (by exposed name, URI or prompt, or a task's
 * `<label>/<id>`) and the params it carries there; null for a method that names none.
 * A task of no server in the namespace is one that does not exist.
 */
export function routeOf(method: string, params: Params, ns: LabelledNamespace): Resolution | null {
  if (!TASK_METHODS.has(method)) return resolveByName(method, params, ns);
  const task = unprefixTask(params.taskId);
  if (!task || !ns.labels.has(task.label)) return { error: { code: ErrorCode.InvalidParams, message: "Unknown task" } };
  return { label: task.label, params: { ...params, taskId: task.taskId } };
}

/** `logging/setLevel` for every started server; one that fails leaves the others. */
export async function setLevelEverywhere<S extends { readonly label: string }>(r: Routing<S>, params: Params): Promise<Result> {
  await fanOut(await r.started(), (s) => r.send(s, "logging/setLevel", params));
  return {};
}

/** `tasks/list`: every started server's tasks as one list, each id `<label>/<id>`; a cursor is not passed on (one page). */
export async function tasksOfAll<S extends { readonly label: string }>(r: Routing<S>, params: Params): Promise<Result> {
  const { cursor: _ignored, ...rest } = params;
  return mergeTasks(await fanOut(await r.started(), (s) => r.send(s, "tasks/list", rest)), (s, task) => withTask(s.label, task));
}

/** What telling servers of a caller's notification needs of a relay. */
export interface Hearers<S> {
  /** The servers started for this caller. */
  started(): readonly S[] | Promise<readonly S[]>;
  /** The caller's request in flight here under this key (./calls.ts requestKey): its server and that server's id for it. */
  inFlight(key: string): InFlight<S> | undefined;
  /** One notification to one server. */
  notify(server: S, method: string, params: Params | undefined): Promise<unknown>;
  /**
   * Whether a cancellation of a request not in flight here goes to every started server (the
   * one running it cancels) rather than to none: a /mcp session's request may run on another replica.
   */
  runsElsewhere: boolean;
}

/**
 * A caller's notification, to the servers that hear it: `initialized` to none (each server
 * had its own at start), a cancellation to the server running that request under its own id
 * (one naming no request to none), anything else to every started server. Best effort: one
 * server that cannot be told leaves the others; resolves once each was told or failed.
 */
export async function notifyServers<S>(h: Hearers<S>, method: string, params: Params | undefined): Promise<void> {
  if (method === "notifications/initialized") return;
  if (method === "notifications/cancelled") {
    if (!params || !isRequestId(params.requestId)) return;
    const found = cancellation(params, h.inFlight);
    if (found) return void (await Promise.allSettled([h.notify(found.server, method, found.notice)]));
    if (!h.runsElsewhere) return;
  }
  await Promise.allSettled((await h.started()).map((s) => h.notify(s, method, params)));
}
