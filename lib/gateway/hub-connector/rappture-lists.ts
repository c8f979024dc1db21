// A `rappture` revision's lists read from its tool.xml in the gateway, so that /mcp lists a
// hub's whole catalogue (hundreds to thousands of Rappture tools) and hub_search_tools
// searches it without starting a tool session per tool. The lists are what the tool session
// would answer (./catalogs.ts fetchLists), built from the same publication (rapptureTool)
// and by the same entry builders McpServer.rappture registers with, but without
// registering: a server compiles each schema into a validator and answers over JSON-RPC,
// which listing never needs and which cost two thirds of a thousand-tool listing.
// Kept per file and read again when the file's mtime or size changes.
import { type Stats, statSync } from "node:fs";
import { rapptureTool } from "../../rappture/publish.ts";
import { ToolXmlError } from "../../rappture/tool-xml.ts";
import { defineResourceTemplate } from "../../registry/resource-templates.ts";
import { defineResource } from "../../registry/resources.ts";
import { toolEntry } from "../../registry/tools.ts";
import { JOB_RESULT_ENTRY } from "../../tasks/job-tool.ts";
import type { Lists } from "./catalogs.ts";

/** The lists a start_mcp --rappture session of `file` answers. */
function listsOf(file: string): Lists {
  let published: ReturnType<typeof rapptureTool>;
  try {
    published = rapptureTool(file);
  } catch (err) {
    // A tool.xml the gateway cannot publish: the session would not start either.
    throw err instanceof ToolXmlError ? err : new ToolXmlError((err as Error).message);
  }
  // As the session lists it to a client without tasks (as catalogs are filled): a job handle
  // carries no structured result, so an async tool's outputSchema is not listed.
  const { options, app, runFiles } = published;
  const { outputSchema: _hidden, ...listed } = options;
  const tool = toolEntry(options.name!, { ...listed, description: options.description ?? "", inputSchema: options.inputSchema! }, "async");
  return {
    // A session registers its job poller with its first async tool, after it.
    tools: [tool, JOB_RESULT_ENTRY],
    prompts: [],
    resources: [defineResource(app.uri, () => app.page, app.options).entry],
    resourceTemplates: [defineResourceTemplate(runFiles.template, runFiles.read, runFiles.options).entry],
  };
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
  lists: Lists;
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
    if (!now?.isFile()) throw new ToolXmlError(`${file}: cannot be read`);
    const kept = this.#entries.get(file);
    if (kept && kept.mtimeMs === now.mtimeMs && kept.size === now.size) return kept.lists;
    let lists: Lists;
    try {
      lists = listsOf(file);
    } catch (err) {
      this.#entries.delete(file);
      throw err;
    }
    this.#entries.set(file, { mtimeMs: now.mtimeMs, size: now.size, lists });
    return lists;
  }
}
