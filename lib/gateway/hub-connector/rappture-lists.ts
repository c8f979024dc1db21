// A `rappture` revision's lists read from its tool.xml in the gateway, so that /mcp lists a
// hub's whole catalogue (hundreds to thousands of Rappture tools) and hub_search_tools
// searches it without starting a tool session per tool. The lists are what the tool session
// would answer (./catalogs.ts fetchLists): the same McpServer.rappture, asked in-process.
// Kept per file and read again when the file's mtime or size changes.
import { type Stats, statSync } from "node:fs";
import { METHOD_OF } from "../../federation/expose.ts";
import { LATEST_VERSION } from "../../mcp/versions.ts";
import { McpServer } from "../../server.ts";
import type { Lists } from "./catalogs.ts";

const KINDS: ReadonlyArray<[keyof Lists, string]> = [
  ["tools", "tools"],
  ["prompts", "prompts"],
  ["resources", "resources"],
  ["resourceTemplates", "resources"],
];

/** A tool.xml the gateway cannot publish: the session would not start either. */
export class RappturesListError extends Error {
  readonly code = "HUBMCP_TOOL_XML_INVALID";
}

/** A request to our own in-process server, which answers these methods with a result. */
async function ask(server: McpServer, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  return ((await server.handle({ jsonrpc: "2.0", id: 1, method, params })) as { result: Record<string, unknown> }).result;
}

/** The lists a start_mcp --rappture session of `file` answers. */
export async function listsOf(file: string): Promise<Lists> {
  let server: McpServer;
  try {
    server = new McpServer("rappture-tools").rappture(file);
  } catch (err) {
    throw new RappturesListError((err as Error).message);
  }
  const opened = await ask(server, "initialize", {
    protocolVersion: LATEST_VERSION,
    capabilities: {},
    clientInfo: { name: "hub_gateway catalog", version: "1" },
  });
  const capabilities = opened.capabilities as Record<string, unknown>;
  const lists: Lists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };
  for (const [kind, capability] of KINDS) {
    if (!(capability in capabilities)) continue;
    // One tool's server: its lists fit one page.
    const result = await ask(server, METHOD_OF[kind], {});
    lists[kind] = result[kind] as Lists[typeof kind];
  }
  return lists;
}

/** The file's stat, or undefined when it cannot be had (missing, a path through a file, no permission). */
function fileStat(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

interface Entry {
  mtimeMs: number;
  size: number;
  lists: Promise<Lists>;
}

export class RappturesLists {
  readonly #entries = new Map<string, Entry>();

  /**
   * The file's lists: parsed once, again after it changed; a file that fails is tried again
   * next time. The stat is synchronous: a thousand of them take milliseconds, while a thousand
   * round trips through libuv's pool (four at a time, as views are built) took hundreds.
   */
  async get(file: string): Promise<Lists> {
    const now = fileStat(file);
    if (!now?.isFile()) throw new RappturesListError(`${file}: cannot be read`);
    const kept = this.#entries.get(file);
    if (kept && kept.mtimeMs === now.mtimeMs && kept.size === now.size) return kept.lists;
    const entry: Entry = { mtimeMs: now.mtimeMs, size: now.size, lists: listsOf(file) };
    this.#entries.set(file, entry);
    entry.lists.catch(() => this.#entries.get(file) === entry && this.#entries.delete(file));
    return entry.lists;
  }
}
