// `subscriptions/listen` of MCP 2026-07-28: the long-lived response stream that replaces
// the GET stream and resources/subscribe. Pure pieces: the filter the client asked for,
// the acknowledgement that opens the stream, and which change notifications it carries,
// each tagged with the subscription id.
import { invalidParams, type StatelessErrorBody } from "./errors.ts";
import { META } from "./envelope.ts";
import { isRecord } from "../../util/guards.ts";

export interface ListenFilter {
  toolsListChanged: boolean;
  promptsListChanged: boolean;
  resourcesListChanged: boolean;
  /** URIs whose `notifications/resources/updated` the client wants. */
  resourceUris: ReadonlySet<string>;
}

const MAX_URIS = 1000;

/** Reads `params.notifications`; anything but booleans and a list of URI strings is -32602. */
export function parseListenFilter(params: unknown): { ok: true; filter: ListenFilter } | { ok: false; error: StatelessErrorBody } {
  const raw = isRecord(params) ? params.notifications : undefined;
  if (!isRecord(raw)) return { ok: false, error: invalidParams("Invalid params: notifications filter is required") };
  const flag = (key: string): boolean | null => (raw[key] === undefined ? false : typeof raw[key] === "boolean" ? (raw[key] as boolean) : null);
  const tools = flag("toolsListChanged");
  const prompts = flag("promptsListChanged");
  const resources = flag("resourcesListChanged");
  if (tools === null || prompts === null || resources === null) return { ok: false, error: invalidParams("Invalid params: filter flags must be booleans") };
  const uris = raw.resourceSubscriptions ?? [];
  if (!Array.isArray(uris) || uris.length > MAX_URIS || !uris.every((u) => typeof u === "string")) {
    return { ok: false, error: invalidParams("Invalid params: resourceSubscriptions must be a list of URIs") };
  }
  return {
    ok: true,
    filter: { toolsListChanged: tools, promptsListChanged: prompts, resourcesListChanged: resources, resourceUris: new Set(uris as string[]) },
  };
}

type Notification = { jsonrpc: "2.0"; method: string; params: Record<string, unknown> };

/** Identifies a listen stream: the revision types it as a request id, so the listen request's id serves. */
export type SubscriptionId = string | number;

/** The filter in its wire form, as the acknowledgement echoes what the server will honour. */
export function filterToWire(filter: ListenFilter): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  if (filter.toolsListChanged) wire.toolsListChanged = true;
  if (filter.promptsListChanged) wire.promptsListChanged = true;
  if (filter.resourcesListChanged) wire.resourcesListChanged = true;
  if (filter.resourceUris.size > 0) wire.resourceSubscriptions = [...filter.resourceUris];
  return wire;
}

/** The first message of every listen stream. */
export function acknowledgement(subscriptionId: SubscriptionId, filter: ListenFilter): Notification {
  return tagged(subscriptionId, "notifications/subscriptions/acknowledged", { notifications: filterToWire(filter) });
}

// A Map: a method named like an Object.prototype member must find nothing.
const LIST_FLAGS: ReadonlyMap<string, keyof Omit<ListenFilter, "resourceUris">> = new Map([
  ["notifications/tools/list_changed", "toolsListChanged"],
  ["notifications/prompts/list_changed", "promptsListChanged"],
  ["notifications/resources/list_changed", "resourcesListChanged"],
]);

/** Whether a change notification belongs on a stream with this filter. */
export function wants(filter: ListenFilter, method: string, params?: Record<string, unknown>): boolean {
  const flag = LIST_FLAGS.get(method);
  if (flag) return filter[flag];
  if (method === "notifications/resources/updated") return typeof params?.uri === "string" && filter.resourceUris.has(params.uri);
  return false;
}

/** The notification as sent on a listen stream: its params' `_meta` names the subscription. */
export function tagged(subscriptionId: SubscriptionId, method: string, params: Record<string, unknown> = {}): Notification {
  const meta = isRecord(params._meta) ? params._meta : {};
  return { jsonrpc: "2.0", method, params: { ...params, _meta: { ...meta, [META.subscriptionId]: subscriptionId } } };
}
