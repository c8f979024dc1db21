// The merged lists of several tools, with the names and URIs of ../federation/naming.ts,
// and the way back from an exposed name or URI to the tool that serves it. A tool that
// fails while listing is left out of that list (and logged) so the others stay usable.
import type { Params } from "../util/jsonrpc.ts";
import { exposedNames, exposeList, type ExposedName, type ListKind } from "../federation/expose.ts";
import { listEvery } from "../federation/relay.ts";
import { unprefixUri, type Origin } from "../federation/naming.ts";
import type { Namespace } from "../federation/resolve.ts";
import type { Upstream } from "./upstream.ts";

export { exposeToolResult, listKindOf, rewriteResultUris, type ListKind } from "../federation/expose.ts";

/** Fetches every page of one list from one tool; throws what the upstream threw. */
export type ListFetcher = (upstream: Upstream, method: string, params: Params) => Promise<Record<string, unknown>>;

export interface Listed {
  items: Record<string, unknown>[];
  /** Tools that could not be listed, with the error each threw. */
  failed: Array<{ upstream: Upstream; error: unknown }>;
}

export class Catalog implements Namespace {
  readonly #upstreams: readonly Upstream[];
  readonly #byLabel: Map<string, Upstream>;
  readonly #fetch: ListFetcher;
  #tools = new Map<string, Origin>();
  #prompts = new Map<string, Origin>();
  #exposedName: ExposedName = () => undefined;

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

  /** The origin behind an exposed tool or prompt name. */
  resolve(kind: "tools" | "prompts", name: string): Origin | undefined {
    return (kind === "tools" ? this.#tools : this.#prompts).get(name);
  }

  exposedName(label: string, name: string): string | undefined {
    return this.#exposedName(label, name);
  }

  resolveUri(uri: string): { label: string; uri: string } | undefined {
    return unprefixUri(uri, this.labels) ?? undefined;
  }

  #all(upstream: Upstream, kind: ListKind): Promise<Record<string, unknown>[]> {
    return listEvery(kind, (method, params) => this.#fetch(upstream, method, params));
  }

  #expose(kind: ListKind, perTool: Array<{ upstream: Upstream; items: Record<string, unknown>[] }>): Record<string, unknown>[] {
    // Names are assigned in HUB_TOOLS order whatever order the answers came in.
    const ordered = this.#upstreams.flatMap((u) => perTool.filter((p) => p.upstream === u));
    const { items, names } = exposeList(
      kind,
      ordered.map(({ upstream, items }) => ({ target: upstream.target, items })),
    );
    if (kind !== "tools" && kind !== "prompts") return items;
    // Names of a tool that failed this time stay routable until it lists again.
    const previous = kind === "tools" ? this.#tools : this.#prompts;
    const listed = new Set(ordered.map((p) => p.upstream.label));
    for (const [exposed, origin] of previous) if (!listed.has(origin.label) && !names.has(exposed)) names.set(exposed, origin);
    if (kind === "tools") {
      this.#tools = names;
      this.#exposedName = exposedNames(names);
    } else this.#prompts = names;
    return items;
  }
}
