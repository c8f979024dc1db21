// The stdio server's tools, resources, resource templates and prompts registered on a
// hubmcp server, so every transport and route (HTTP, legacy SSE, REST, OpenAPI, discovery,
// the console) serves them as its own. Each list is read whole (all pages) and made to
// match: what went is removed, what changed is registered again, what came is added; the
// server tells its sessions the list changed as it does for any registration.
import type { McpServer } from "../server.ts";
import type { AnyToolHandler, ToolOptions } from "../registry/tools.ts";
import type { Completer } from "../registry/common.ts";
import type { PromptArgument } from "../registry/prompts.ts";
import { isRecord } from "../util/guards.ts";

export type ListKind = "tools" | "resources" | "templates" | "prompts";

/** How registered entries reach the stdio server: `forward` sends one request as the relay does. */
export interface CatalogLinks {
  callTool(name: string, args: Record<string, unknown>, ctx: unknown): Promise<unknown>;
  read(uri: string): Promise<string | Uint8Array>;
  getPrompt(name: string, args: Record<string, unknown>): Promise<unknown>;
  /** Present when the server completes arguments. */
  complete?(ref: Record<string, unknown>, name: string, value: string, others: Record<string, string>): Promise<readonly string[]>;
  /** An entry that could not be registered (its name or schema refused): one line, no values. */
  skipped(what: string, reason: string): void;
}

const LISTS: Record<ListKind, { method: string; field: string; key: string }> = {
  tools: { method: "tools/list", field: "tools", key: "name" },
  resources: { method: "resources/list", field: "resources", key: "uri" },
  templates: { method: "resources/templates/list", field: "resourceTemplates", key: "uriTemplate" },
  prompts: { method: "prompts/list", field: "prompts", key: "name" },
};

/** Pages read per list before giving up on a server whose cursors never end. */
const MAX_PAGES = 100;

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const record = (v: unknown): Record<string, unknown> | undefined => (isRecord(v) ? v : undefined);

export class RelayedCatalog {
  readonly #server: McpServer;
  readonly #links: CatalogLinks;
  /** Per list: key → the entry as last listed (JSON), to see what changed. */
  readonly #seen: Record<ListKind, Map<string, string>> = { tools: new Map(), resources: new Map(), templates: new Map(), prompts: new Map() };

  constructor(server: McpServer, links: CatalogLinks) {
    this.#server = server;
    this.#links = links;
  }

  /** Reads one list from the server (through `list`) and makes the registrations match it. */
  async sync(kind: ListKind, list: (method: string, cursor: string | undefined) => Promise<Record<string, unknown>>): Promise<void> {
    const { method, field, key } = LISTS[kind];
    const listed = new Map<string, Record<string, unknown>>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await list(method, cursor);
      const items = Array.isArray(result[field]) ? result[field] : [];
      for (const item of items) if (isRecord(item) && typeof item[key] === "string") listed.set(item[key], item);
      cursor = text(result.nextCursor);
      if (!cursor) break;
    }
    const seen = this.#seen[kind];
    for (const [id, json] of seen) {
      const now = listed.get(id);
      if (now && JSON.stringify(now) === json) continue;
      this.#remove(kind, id);
      seen.delete(id);
    }
    for (const [id, item] of listed) {
      if (seen.has(id)) continue;
      try {
        this.#add(kind, id, item);
        seen.set(id, JSON.stringify(item));
      } catch (err) {
        this.#links.skipped(`${kind === "templates" ? "resource template" : kind.slice(0, -1)} ${id.slice(0, 200)}`, (err as Error).message);
      }
    }
  }

  #remove(kind: ListKind, id: string): void {
    if (kind === "tools") this.#server.removeTool(id);
    else if (kind === "prompts") this.#server.removePrompt(id);
    else if (kind === "templates") this.#server.removeResourceTemplate(id);
    else this.#server.removeResource(id);
  }

  #add(kind: ListKind, id: string, item: Record<string, unknown>): void {
    const links = this.#links;
    const common = { title: text(item.title), description: text(item.description), icons: item.icons as never, _meta: record(item._meta) };
    if (kind === "tools") {
      // A destructured first parameter: the handler takes the arguments object whatever the tool's parameters are named.
      const handler = ({ ...args }: Record<string, unknown>, ctx: unknown) => links.callTool(id, args, ctx);
      const options: ToolOptions = {
        ...common,
        name: id,
        inputSchema: (record(item.inputSchema) ?? { type: "object" }) as ToolOptions["inputSchema"],
        outputSchema: record(item.outputSchema) as ToolOptions["outputSchema"],
        annotations: record(item.annotations),
        context: true,
        // Without a context (REST) the call is relayed all the same, only without progress, logs or questions.
        contextOptional: true,
      };
      this.#server.tool(handler as AnyToolHandler, options);
    } else if (kind === "prompts") {
      const args: PromptArgument[] = (Array.isArray(item.arguments) ? item.arguments : []).filter(
        (a): a is PromptArgument => isRecord(a) && typeof a.name === "string",
      );
      const handler = ({ ...given }: Record<string, unknown>) => links.getPrompt(id, given);
      const complete = this.#completers(
        { type: "ref/prompt", name: id },
        args.map((a) => a.name),
      );
      this.#server.prompt(handler, { ...common, name: id, arguments: args, ...complete });
    } else {
      const options = { ...common, name: text(item.name), mimeType: text(item.mimeType) };
      if (kind === "resources") this.#server.resource(id, () => links.read(id), { ...options, size: typeof item.size === "number" ? item.size : undefined });
      else {
        const names = [...id.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) => m[1]!.split(",").map((n) => n.replace(/[*:].*$/, "")));
        const complete = this.#completers({ type: "ref/resource", uri: id }, names);
        this.#server.resource(id, (_vars: Record<string, string>, uri: string) => links.read(uri), { ...options, ...complete });
      }
    }
  }

  #completers(ref: Record<string, unknown>, names: readonly string[]): { complete?: Record<string, Completer> } {
    const complete = this.#links.complete;
    if (!complete || names.length === 0) return {};
    return {
      complete: Object.fromEntries(names.map((n) => [n, (value: string, context) => complete(ref, n, value, context.arguments)] as [string, Completer])),
    };
  }
}
