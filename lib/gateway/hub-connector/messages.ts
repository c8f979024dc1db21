// What changes in a message between a client of /mcp and one tool session. Requests the
// tool sends the client (elicitation, sampling, roots, ping) and the tool's task ids are
// given the tool's name as a prefix (the relays' one id scheme, ../../federation/ids.ts), so
// the client's answer or `tasks/*` request finds its way back without any table (and across
// a gateway restart for tasks); resource URIs take the tool's label as hub_bridge does; a
// log line says its tool.
import { isRecord } from "../../util/guards.ts";
import { exposeToolResult, type ExposedName } from "../../federation/expose.ts";
import { exposeResult as exposeFromServer, exposeServerMessage } from "../../federation/moves.ts";
import { withMeta } from "../../federation/ids.ts";
import { exposeJobHandle, exposeJobPoll, JOB_POLL } from "./jobs.ts";

type Message = Record<string, unknown>;

/** No tool renamed: for callers that hold no view of the namespace. */
const SAME_NAMES: ExposedName = () => undefined;

/** A result the tool answered to `method`, as the client sees it: the relays' one exposing, and the connector's job handles. */
export function exposeResult(tool: string, method: string, result: Message, exposedName: ExposedName = SAME_NAMES): Message {
  const target = { label: tool, tool };
  if (method === JOB_POLL) return exposeJobPoll(tool, exposeToolResult(target, withMeta(tool, result), exposedName));
  // Before renaming: the handle is known by the poller's own name in its tool-refs.
  const handled = method === "tools/call" || method === "tasks/result" ? exposeJobHandle(tool, result) : result;
  return exposeFromServer(target, method, handled, exposedName);
}

/**
 * Any message from the tool as the client sees it. `answering` is the method of the
 * client's request this message may answer; `onListChanged` hears a tool's list changes.
 */
export function exposeMessage(tool: string, message: unknown, answering: string | undefined, onListChanged: () => void, exposedName?: ExposedName): unknown {
  if (!isRecord(message)) return message;
  const method = message.method;
  if (typeof method !== "string") {
    if (answering && isRecord(message.result)) return { ...message, result: exposeResult(tool, answering, message.result, exposedName) };
    return message;
  }
  // A list change makes the person's view stale (a request is never one, whatever its name).
  if (method.endsWith("/list_changed") && !("id" in message)) onListChanged();
  return exposeServerMessage({ label: tool, tool }, { ...message, method });
}
