// The moves every relay over several MCP servers makes the same way, whatever it relays over:
// the hub connector over the caller's tool sessions (gateway/hub-connector/), hub_bridge
// over gateway endpoints (bridge/). Each list is read page by page to its end; a request
// for every server (`logging/setLevel`, `tasks/list`) goes to each started one and the
// answers that came are merged (./route-moves.ts decides when); a server's results, log
// lines, requests and resource updates are renamed into the one namespace (./naming.ts,
// ./ids.ts). Pure, or generic over how a server is reached.
import { isRecord } from "../util/guards.ts";
import { isRequestId, type Params } from "../util/jsonrpc.ts";
import { type ExposedName, exposeToolResult, METHOD_OF, rewriteResultUris, type Labelled, type ListKind } from "./expose.ts";
import { prefixId, withMeta, withTask } from "./ids.ts";
import { exposeUri } from "./naming.ts";

type Item = Record<string, unknown>;

/** Pages read of one list before the rest is left out: a server whose cursor never ends stops here. */
const MAX_PAGES = 100;

/** Every item of one list, following `nextCursor` page by page; `fetchPage` throws what the server's answer threw. */
export async function listEvery(kind: ListKind, fetchPage: (method: string, params: Params) => Promise<Item>): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: unknown;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetchPage(METHOD_OF[kind], cursor === undefined ? {} : { cursor });
    const list = result[kind];
    if (Array.isArray(list)) for (const item of list) if (isRecord(item)) items.push(item);
    cursor = result.nextCursor;
    if (typeof cursor !== "string" || cursor === "") break;
  }
  return items;
}

/** Sends to each server at once; the answers of those that answered, in the order given (one failing leaves the others). */
export async function fanOut<T, R>(servers: readonly T[], send: (server: T) => Promise<R>): Promise<Array<{ server: T; answer: R }>> {
  const settled = await Promise.allSettled(servers.map(send));
  return settled.flatMap((s, i) => (s.status === "fulfilled" ? [{ server: servers[i]!, answer: s.value }] : []));
}

/** One `tasks/list` answer from the servers' own: each task as `expose` names it to the caller. */
export function mergeTasks<T>(answers: ReadonlyArray<{ server: T; answer: Item }>, expose: (server: T, task: Item & { taskId: string }) => unknown): Item {
  const tasks: unknown[] = [];
  for (const { server, answer } of answers) {
    if (!Array.isArray(answer.tasks)) continue;
    for (const task of answer.tasks) if (isRecord(task) && typeof task.taskId === "string") tasks.push(expose(server, task as Item & { taskId: string }));
  }
  return { tasks };
}

/**
 * A server's notification as the caller of a relay over several sees it: a log line names
 * its server (`<label>/<logger>`), an updated resource has its exposed URI. Anything else
 * is returned as it is.
 */
export function exposeNotification(target: Labelled, method: string, params: Params): Params {
  switch (method) {
    case "notifications/message":
      return { ...params, logger: typeof params.logger === "string" ? `${target.label}/${params.logger}` : target.label };
    case "notifications/resources/updated":
      return typeof params.uri === "string" ? { ...params, uri: exposeUri(target, params.uri) } : params;
    default:
      return params;
  }
}

/**
 * A server's request or notification as the caller of a relay over several sees it: a
 * request's id is `<label>/<id>` (./ids.ts), so the caller's answer finds its server again,
 * and so is the request a withdrawal names; task ids and the tasks `_meta` relates to are
 * prefixed; log lines and resource updates renamed (exposeNotification).
 */
export function exposeServerMessage(target: Labelled, message: Item & { method: string }): Item {
  const params = isRecord(message.params) ? withMeta(target.label, message.params) : undefined;
  if (isRequestId(message.id)) return { ...message, id: prefixId(target.label, message.id), ...(params ? { params } : {}) };
  if (!params) return message;
  switch (message.method) {
    case "notifications/cancelled":
      return { ...message, params: isRequestId(params.requestId) ? { ...params, requestId: prefixId(target.label, params.requestId) } : params };
    case "notifications/tasks/status":
      return { ...message, params: withTask(target.label, params) };
    default:
      return { ...message, params: exposeNotification(target, message.method, params) };
  }
}

/**
 * A server's result to `method` as the caller of a relay over several sees it: tool names its
 * text states renamed (`exposedName`), URIs exposed, the task a result creates or reports on
 * and the task its `_meta` relates to prefixed; a task's outcome exposed as a direct call's is.
 */
export function exposeResult(target: Labelled, method: string, result: Item, exposedName: ExposedName): Item {
  let out = withMeta(target.label, result);
  switch (method) {
    case "tools/call":
    case "tasks/result":
      out = exposeToolResult(target, out, exposedName);
      // A created task: the 2025-11-25 `task` field, or the 2026-07-28 flat result.
      if (isRecord(out.task)) out = { ...out, task: withTask(target.label, out.task) };
      return withTask(target.label, out) as Item;
    case "resources/read":
      return rewriteResultUris(target, out);
    case "tasks/get":
    case "tasks/cancel":
    case "tasks/update":
      if (isRecord(out.result)) out = { ...out, result: exposeToolResult(target, out.result, exposedName) };
      return withTask(target.label, out) as Item;
    default:
      return out;
  }
}
