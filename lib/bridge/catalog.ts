// The merged lists of several tools, with the names and URIs of ./naming.ts, and the way
// back from an exposed name or URI to the tool that serves it. A tool that fails while
// listing is left out of that list (and logged) so the others stay usable.
import type { Params } from "../util/jsonrpc.ts";
import { isRecord } from "../util/guards.ts";
import type { ToolTarget } from "./config.ts";
import { assignNames, exposeUri, unprefixUri, type Origin } from "./naming.ts";
import type { Upstream } from "./upstream.ts";

export type ListKind = "tools" | "prompts" | "resources" | "resourceTemplates";

export const LIST_METHODS: Record<string, ListKind> = {
  "tools/list": "tools",
  "prompts/list": "prompts",
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
};

const METHOD_OF: Record<ListKind, string> = {
  tools: "tools/list",
  prompts: "prompts/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
};

/** Fetches every page of one list from one tool; throws what the upstream threw. */
export type ListFetcher = (upstream: Upstream, method: string, params: Params) => Promise<Record<string, unknown>>;

export interface Listed {
  items: Record<string, unknown>[];
  /** Tools that could not be listed, with the error each threw. */
  failed: Array<{ upstream: Upstream; error: unknown }>;
}

const MAX_PAGES = 100;

function rewriteMeta(target: ToolTarget, meta: unknown): unknown {
  if (!isRecord(meta)) return meta;
  const out: Record<string, unknown> = { ...meta };
  if (typeof out["ui/resourceUri"] === "string") out["ui/resourceUri"] = exposeUri(target, out["ui/resourceUri"]);
  if (isRecord(out.ui) && typeof out.ui.resourceUri === "string") out.ui = { ...out.ui, resourceUri: exposeUri(target, out.ui.resourceUri) };
  return out;
}

/** Resource links and embedded resources in a tool result, and `contents` of a read, get their exposed URIs. */
export function rewriteResultUris(target: ToolTarget, result: Record<string, unknown>): Record<string, unknown> {
  const out = { ...result };
  if (Array.isArray(out.content)) {
    out.content = out.content.map((block: unknown) => {
      if (!isRecord(block)) return block;
      if (block.type === "resource_link" && typeof block.uri === "string") return { ...block, uri: exposeUri(target, block.uri) };
      if (block.type === "resource" && isRecord(block.resource) && typeof block.resource.uri === "string") {
        return { ...block, resource: { ...block.resource, uri: exposeUri(target, block.resource.uri) } };
      }
      return block;
    });
  }
  if (Array.isArray(out.contents)) {
    out.contents = out.contents.map((item: unknown) => (isRecord(item) && typeof item.uri === "string" ? { ...item, uri: exposeUri(target, item.uri) } : item));
  }
  return out;
}

export class Catalog {
  readonly #upstreams: readonly Upstream[];
  readonly #byLabel: Map<string, Upstream>;
  readonly #fetch: ListFetcher;
  #tools = new Map<string, Origin>();
  #prompts = new Map<string, Origin>();

  constructor(upstreams: readonly Upstream[], fetch: ListFetcher) {
    this.#upstreams = upstreams;
    this.#byLabel = new Map(upstreams.map((u) => [u.label, u]));
    this.#fetch = fetch;
  }

  get labels(): ReadonlySet<string> {
    return new Set(this.#byLabel.keys());
  }

  upstream(label: string): Upstream | undefined {
    return this.#byLabel.get(label);
  }

  async list(kind: ListKind): Promise<Listed> {
    const settled = await Promise.allSettled(this.#upstreams.map((u) => this.#all(u, kind)));
    const failed: Listed["failed"] = [];
    const perTool: Array<{ upstream: Upstream; items: Record<string, unknown>[] }> = [];
    settled.forEach((s, i) => {
      const upstream = this.#upstreams[i]!;
      if (s.status === "fulfilled") perTool.push({ upstream, items: s.value });
      else failed.push({ upstream, error: s.reason });
    });
    return { items: this.#expose(kind, perTool), failed };
  }

  /** The tool and original name behind an exposed tool or prompt name. */
  resolve(kind: "tools" | "prompts", name: string): { upstream: Upstream; name: string } | undefined {
    const origin = (kind === "tools" ? this.#tools : this.#prompts).get(name);
    const upstream = origin && this.#byLabel.get(origin.label);
    return origin && upstream ? { upstream, name: origin.name } : undefined;
  }

  resolveUri(uri: string): { upstream: Upstream; uri: string } | undefined {
    const found = unprefixUri(uri, this.labels);
    const upstream = found && this.#byLabel.get(found.label);
    return found && upstream ? { upstream, uri: found.uri } : undefined;
  }

  async #all(upstream: Upstream, kind: ListKind): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let cursor: unknown;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.#fetch(upstream, METHOD_OF[kind], cursor === undefined ? {} : { cursor });
      const list = result[kind];
      if (Array.isArray(list)) for (const item of list) if (isRecord(item)) items.push(item);
      cursor = result.nextCursor;
      if (typeof cursor !== "string" || cursor === "") break;
    }
    return items;
  }

  #expose(kind: ListKind, perTool: Array<{ upstream: Upstream; items: Record<string, unknown>[] }>): Record<string, unknown>[] {
    // Names are assigned in HUB_TOOLS order whatever order the answers came in.
    const ordered = this.#upstreams.flatMap((u) => perTool.filter((p) => p.upstream === u));
    if (kind === "tools" || kind === "prompts") {
      const origins = ordered.flatMap(({ upstream, items }) =>
        items.filter((i) => typeof i.name === "string").map((i) => ({ label: upstream.label, name: i.name as string, item: i, target: upstream.target })),
      );
      const names = assignNames(origins);
      const fresh = new Map<string, Origin>();
      const out: Record<string, unknown>[] = [];
      for (const [exposed, origin] of names) {
        const { item, label, target } = origin as Origin & { item: Record<string, unknown>; target: ToolTarget };
        fresh.set(exposed, { label, name: origin.name });
        out.push(kind === "tools" ? { ...item, name: exposed, ...("_meta" in item ? { _meta: rewriteMeta(target, item._meta) } : {}) } : { ...item, name: exposed });
      }
      // Names of a tool that failed this time stay routable until it lists again.
      const previous = kind === "tools" ? this.#tools : this.#prompts;
      const listed = new Set(ordered.map((p) => p.upstream.label));
      for (const [exposed, origin] of previous) if (!listed.has(origin.label) && !fresh.has(exposed)) fresh.set(exposed, origin);
      if (kind === "tools") this.#tools = fresh;
      else this.#prompts = fresh;
      return out;
    }
    const field = kind === "resources" ? "uri" : "uriTemplate";
    return ordered.flatMap(({ upstream, items }) =>
      items.map((item) => (typeof item[field] === "string" ? { ...item, [field]: exposeUri(upstream.target, item[field] as string) } : item)),
    );
  }
}
