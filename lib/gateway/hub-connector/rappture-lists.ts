// A `rappture` revision's lists read from its tool.xml in the gateway, so that /mcp lists a
// hub's whole catalogue (hundreds to thousands of Rappture tools) and hub_search_tools
// searches it without starting a tool session per tool. The lists are what the tool session
// would answer (./catalogs.ts fetchLists): the same McpServer.rappture, asked in-process.
// Kept per file and read again when the file's mtime or size changes.
import { type Stats, statSync } from "node:fs";
import { METHOD_OF } from "../../federation/expose.ts";
import { LATEST_VERSION } from "../../mcp/versions.ts";
import { McpServer } from "../../server.ts";
import { ToolXmlError } from "../../rappture/tool-xml.ts";
import { JOB_RESULT_TOOL } from "../../tasks/views.ts";
import type { Lists } from "./catalogs.ts";

const KINDS: ReadonlyArray<[keyof Lists, string]> = [
  ["tools", "tools"],
  ["prompts", "prompts"],
  ["resources", "resources"],
  ["resourceTemplates", "resources"],
];

/** A request to our own in-process server, which answers these methods with a result. */
async function ask(server: McpServer, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  return ((await server.handle({ jsonrpc: "2.0", id: 1, method, params })) as { result: Record<string, unknown> }).result;
}

/** The tools and resources a lister holds now, but the job poller every async server keeps. */
async function clear(lister: McpServer): Promise<void> {
  for (const tool of (await ask(lister, "tools/list", {})).tools as Array<{ name: string }>) if (tool.name !== JOB_RESULT_TOOL) lister.removeTool(tool.name);
  for (const resource of (await ask(lister, "resources/list", {})).resources as Array<{ uri: string }>) lister.removeResource(resource.uri);
}

/**
 * The lists a start_mcp --rappture session of `file` answers, from `lister`, a server that
 * holds one tool.xml's publication at a time: registered, listed, removed. One server for all
 * halves the cost of a fresh one per file (its construction and job poller).
 */
async function listOn(lister: McpServer, file: string): Promise<Lists> {
  try {
    try {
      lister.rappture(file);
    } catch (err) {
      // A tool.xml the gateway cannot publish: the session would not start either.
      throw err instanceof ToolXmlError ? err : new ToolXmlError((err as Error).message);
    }
    const opened = await ask(lister, "initialize", {
      protocolVersion: LATEST_VERSION,
      capabilities: {},
      clientInfo: { name: "hub_gateway catalog", version: "1" },
    });
    const capabilities = opened.capabilities as Record<string, unknown>;
    const lists: Lists = { tools: [], prompts: [], resources: [], resourceTemplates: [] };
    for (const [kind, capability] of KINDS) {
      if (!(capability in capabilities)) continue;
      // One tool's server: its lists fit one page.
      lists[kind] = (await ask(lister, METHOD_OF[kind], {}))[kind] as Lists[typeof kind];
    }
    // The lister's job poller was registered before this tool; a session registers it with its first async tool, after it.
    const poller = (t: Record<string, unknown>): boolean => t.name === JOB_RESULT_TOOL;
    return { ...lists, tools: [...lists.tools.filter((t) => !poller(t)), ...lists.tools.filter(poller)] };
  } finally {
    await clear(lister);
  }
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
  #lister: McpServer | undefined;
  /** Publications go through the lister one at a time. */
  #queue: Promise<unknown> = Promise.resolve();

  /**
   * The file's lists: parsed once, again after it changed; a file that fails is tried again
   * next time. The stat is synchronous: a thousand of them take milliseconds, while a thousand
   * round trips through libuv's pool (four at a time, as views are built) took hundreds.
   */
  async get(file: string): Promise<Lists> {
    const now = fileStat(file);
    if (!now?.isFile()) throw new ToolXmlError(`${file}: cannot be read`);
    const kept = this.#entries.get(file);
    if (kept && kept.mtimeMs === now.mtimeMs && kept.size === now.size) return kept.lists;
    const lists = this.#queue.then(() => listOn((this.#lister ??= new McpServer("rappture-tools")), file));
    this.#queue = lists.catch(() => {});
    const entry: Entry = { mtimeMs: now.mtimeMs, size: now.size, lists };
    this.#entries.set(file, entry);
    entry.lists.catch(() => this.#entries.get(file) === entry && this.#entries.delete(file));
    return entry.lists;
  }
}
