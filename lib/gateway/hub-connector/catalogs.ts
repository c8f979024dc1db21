// What each (tool, revision) offers, kept by the gateway so that listing at /mcp does
// not start a tool session per tool per person. An entry is filled from one tool
// session (the first caller's own), through a short MCP session that lists everything
// and ends; it is dropped when the tool says a list changed (or is registered anew), and refilled when older
// than the bound. A tool with `"catalog": false` is listed live each time instead.
import { isRecord } from "../../util/guards.ts";
import type { ListKind } from "../../federation/expose.ts";
import { listEvery } from "../../federation/moves.ts";
import { LATEST_VERSION } from "../../mcp/versions.ts";
import type { Upstream } from "../relay/forward.ts";
import { end, initialize, request } from "../relay/upstream-mcp.ts";

export type Lists = Record<ListKind, ReadonlyArray<Record<string, unknown>>>;

interface Entry {
  at: number;
  lists: Promise<Lists>;
}

const KINDS: ReadonlyArray<[ListKind, string]> = [
  ["tools", "tools"],
  ["prompts", "prompts"],
  ["resources", "resources"],
  ["resourceTemplates", "resources"],
];

/** Lists everything a tool session offers, over a session of its own. */
export async function fetchLists(up: Upstream): Promise<Lists> {
  const opened = await initialize(up, { protocolVersion: LATEST_VERSION, capabilities: {}, clientInfo: { name: "hub_gateway catalog", version: "1" } });
  const headers = typeof opened.result.protocolVersion === "string" ? { "mcp-protocol-version": opened.result.protocolVersion } : {};
  const capabilities = isRecord(opened.result.capabilities) ? opened.result.capabilities : {};
  const lists: Lists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };
  try {
    for (const [kind, capability] of KINDS) {
      if (!(capability in capabilities)) continue;
      lists[kind] = await listEvery(kind, async (method, params) => (await request(up, opened.session, method, params, headers)).result);
    }
  } finally {
    await end(up, opened.session);
  }
  return lists;
}

export class Catalogs {
  readonly #entries = new Map<string, Entry>();
  readonly #maxAgeMs: number;
  readonly #onFill: (tool: string, revision: string) => void;

  constructor(maxAgeMs: number, onFill: (tool: string, revision: string) => void = () => {}) {
    this.#maxAgeMs = maxAgeMs;
    this.#onFill = onFill;
  }

  /**
   * The lists of (tool, revision); `session` gives a tool session to fill from when the
   * entry is missing or stale. Concurrent callers share one fill; a failed fill is not kept.
   */
  get(tool: string, revision: string, cached: boolean, session: () => Promise<Upstream>): Promise<Lists> {
    const key = `${tool}\n${revision}`;
    const entry = this.#entries.get(key);
    if (cached && entry && Date.now() - entry.at < this.#maxAgeMs) return entry.lists;
    this.#onFill(tool, revision);
    const lists = session().then(fetchLists);
    if (!cached) return lists;
    const fresh: Entry = { at: Date.now(), lists };
    this.#entries.set(key, fresh);
    lists.catch(() => {
      if (this.#entries.get(key) === fresh) this.#entries.delete(key);
    });
    return lists;
  }

  /** The tool said a list changed, or was registered again or removed: every revision's entry goes. */
  forget(tool: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(`${tool}\n`)) this.#entries.delete(key);
  }
}
