// How a relay over several servers names their request and task ids to its caller: the
// server's label, a slash, then the id (`<label>/<id>`; a request id as its JSON, so a
// number and a string stay apart). An answer, a cancellation or a `tasks/*` request finds
// its server from the id alone, with no table to keep and across a restart of the relay.
// The one id scheme of the hub connector and hub_bridge, as ./naming.ts is their one URI scheme.
import { META } from "../mcp/extension-ids.ts";
import { isRecord } from "../util/guards.ts";

type Message = Record<string, unknown>;

export function prefixId(label: string, id: string | number): string {
  return `${label}/${JSON.stringify(id)}`;
}

/** The label and original id behind a prefixed request id; null for anything else. */
export function unprefixId(id: unknown): { label: string; id: string | number } | null {
  if (typeof id !== "string") return null;
  const slash = id.indexOf("/");
  if (slash < 1) return null;
  try {
    const inner: unknown = JSON.parse(id.slice(slash + 1));
    return typeof inner === "string" || typeof inner === "number" ? { label: id.slice(0, slash), id: inner } : null;
  } catch {
    return null;
  }
}

/** Methods whose params name one task (`taskId`, prefixed with its label): routed by the id alone. */
export const TASK_METHODS: ReadonlySet<string> = new Set(["tasks/get", "tasks/result", "tasks/cancel", "tasks/update"]);

export const prefixTask = (label: string, taskId: string): string => `${label}/${taskId}`;

/** The label and the server's own task (or job) id behind a prefixed one; null when it names no label. */
export function unprefixTask(taskId: unknown): { label: string; taskId: string } | null {
  if (typeof taskId !== "string") return null;
  const slash = taskId.indexOf("/");
  return slash < 1 ? null : { label: taskId.slice(0, slash), taskId: taskId.slice(slash + 1) };
}

/** `value` with its `taskId` prefixed, when it has one. */
export function withTask(label: string, value: unknown): unknown {
  return isRecord(value) && typeof value.taskId === "string" ? { ...value, taskId: prefixTask(label, value.taskId) } : value;
}

/** `value` with the task its `_meta` relates it to prefixed, when it names one. */
export function withMeta(label: string, value: Message): Message {
  const meta = value._meta;
  if (!isRecord(meta) || !isRecord(meta[META.relatedTask])) return value;
  return { ...value, _meta: { ...meta, [META.relatedTask]: withTask(label, meta[META.relatedTask]) } };
}
