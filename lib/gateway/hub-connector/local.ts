// What /mcp answers itself: initialize, discovery, the merged lists (paginated), the
// built-in search. The lists come from the person's view (./namespace.ts), never from a
// tool session per tool.
import { listKindOf } from "../../federation/expose.ts";
import { initializeResult as relayInitializeResult } from "../../federation/merge.ts";
import { discoverResult, type ServerDescription } from "../../mcp/stateless/results.ts";
import { LATEST_VERSION, SUPPORTED_VERSIONS } from "../../mcp/versions.ts";
import { ErrorCode, JsonRpcError } from "../../util/jsonrpc.ts";
import type { PersonView } from "./namespace.ts";
import { JOBS_DEFINITION } from "./jobs.ts";
import { SEARCH_DEFINITION } from "../../federation/search.ts";

type Result = Record<string, unknown>;

export const SERVER_INFO = { name: "hub_gateway", title: "All tools of this hub", version: "1" };
const INSTRUCTIONS =
  "Every tool of this hub you may use, named <tool>_<name>. With many tools, call hub_search_tools with a few words to find the right ones instead of reading the whole list.";

export function negotiatedVersion(params: Result): string {
  const asked = params.protocolVersion;
  return typeof asked === "string" && (SUPPORTED_VERSIONS as readonly string[]).includes(asked) ? asked : LATEST_VERSION;
}

/**
 * What /mcp offers, whatever tools a person may use: one description that `initialize` and
 * `server/discover` both build on (lib/mcp), so they cannot disagree. Resource subscriptions
 * are relayed to the tool that has the resource; its updates arrive on the GET stream.
 */
const DESCRIPTION: ServerDescription = {
  serverInfo: SERVER_INFO,
  instructions: INSTRUCTIONS,
  hasTools: true,
  hasPrompts: true,
  hasResources: true,
  hasCompletions: true,
  listChanged: true,
  resourceSubscribe: true,
  logging: true,
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/** No tool is started at initialize: the relays' one builder with the description alone (../../federation/merge.ts). */
export function initializeResult(version: string): Result {
  return relayInitializeResult(DESCRIPTION, version);
}

export function discover(): Result {
  return discoverResult(DESCRIPTION);
}

function offsetOf(cursor: unknown): number {
  if (cursor === undefined) return 0;
  const n = typeof cursor === "string" && /^o[0-9]{1,9}$/.test(cursor) ? Number(cursor.slice(1)) : NaN;
  if (!Number.isSafeInteger(n)) throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: unknown cursor");
  return n;
}

/** One page of a merged list; the built-in search tool (and job poller) open the first page of tools/list. */
export function listPage(view: PersonView, method: string, params: Result, pageSize: number): Result | undefined {
  const kind = listKindOf(method);
  if (!kind) return undefined;
  const builtIn = view.hasJobs ? [SEARCH_DEFINITION, JOBS_DEFINITION] : [SEARCH_DEFINITION];
  const items: unknown[] = kind === "tools" ? [...builtIn, ...view.lists.tools] : view.lists[kind];
  const from = offsetOf(params.cursor);
  const to = from + pageSize;
  return { [kind]: items.slice(from, to), ...(to < items.length ? { nextCursor: `o${to}` } : {}) };
}
